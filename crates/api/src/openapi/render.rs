//! Rendering the route and schema tables of [`super::tables`] as OpenAPI 3.1 JSON: `Kind` → JSON
//! Schema, request/response objects, parameters, the error responses of each operation and
//! the `components` section.

use serde_json::{Map, Value, json};

use super::tables::*;
use crate::context::KEYSTONE_UNAVAILABLE;
use crate::types::{Kind, Schema, s};

/// `Kind` → JSON Schema. `nullable` adds `null` (optional request fields accept it; response
/// attributes that may be `NULL`). `request` selects `$ref`s to the named request schemas for
/// nested objects (responses inline them, with every attribute present).
fn kind_schema(kind: &Kind, nullable: bool, request: bool) -> Value {
    let ty = |t: &str| {
        if nullable {
            json!([t, "null"])
        } else {
            json!(t)
        }
    };
    match kind {
        Kind::Str { min, max } => {
            let mut o = json!({"type": ty("string")});
            if let Some(n) = min {
                o["minLength"] = json!(n);
            }
            if let Some(n) = max {
                o["maxLength"] = json!(n);
            }
            o
        }
        Kind::Pattern { pattern, min, max } => {
            let mut o = json!({"type": ty("string"), "pattern": pattern});
            if let Some(n) = min {
                o["minLength"] = json!(n);
            }
            if let Some(n) = max {
                o["maxLength"] = json!(n);
            }
            o
        }
        Kind::Uuid => json!({"type": ty("string"), "format": "uuid"}),
        Kind::Int { min, max } => {
            let mut o = json!({"type": ty("integer")});
            if let Some(n) = min {
                o["minimum"] = json!(n);
            }
            if let Some(n) = max {
                o["maximum"] = json!(n);
            }
            o
        }
        Kind::Bool => json!({"type": ty("boolean")}),
        Kind::FloatEnum(values) => {
            let mut e: Vec<Value> = values.iter().map(|x| json!(x)).collect();
            if nullable {
                e.push(Value::Null);
            }
            json!({"type": ty("number"), "enum": e})
        }
        Kind::Enum(values) => {
            let mut e: Vec<Value> = values.iter().map(|x| json!(x)).collect();
            if nullable {
                e.push(Value::Null);
            }
            json!({"type": ty("string"), "enum": e})
        }
        Kind::Ip => json!({"type": ty("string"),
            "anyOf": [{"format": "ipv4"}, {"format": "ipv6"}]}),
        Kind::Cidr => json!({"type": ty("string"), "format": "cidr",
            "description": "IPv4 or IPv6 CIDR; normalised to network/prefix"}),
        Kind::UrlPath => json!({"type": ty("string"), "pattern": "^/([^/\\s]\\S*)?$",
            "maxLength": crate::types::URL_COLUMN_MAX}),
        Kind::Url => json!({"type": ty("string"), "format": "uri",
            "maxLength": crate::types::URL_COLUMN_MAX}),
        Kind::Alpn => kind_schema(
            &Kind::Enum(&["h2", "http/1.1", "http/1.0"]),
            nullable,
            request,
        ),
        Kind::List(item) => {
            json!({"type": ty("array"), "items": kind_schema(item, false, request)})
        }
        Kind::Joined { item, max } => json!({"type": ty("array"),
            "items": kind_schema(item, false, request),
            "description": format!("stored joined with ','; at most {max} characters so joined")}),
        Kind::StrDict(max) => {
            let mut item = json!({"type": ["string", "null"]});
            if let Some(n) = max {
                item["maxLength"] = json!(n);
            }
            json!({"type": ty("object"), "additionalProperties": item})
        }
        Kind::Object(schema) => {
            let inner = object_schema(schema, request);
            if nullable {
                json!({"anyOf": [inner, {"type": "null"}]})
            } else {
                inner
            }
        }
        Kind::ObjectList(schema) => {
            json!({"type": ty("array"), "items": object_schema(schema, request)})
        }
    }
}

/// A complex type: a `$ref` to its component when it is a named request schema (request
/// side), else inline.
fn object_schema(schema: &'static Schema, request: bool) -> Value {
    if request {
        if let Some((name, _)) = REQUEST_SCHEMAS
            .iter()
            .find(|(_, s)| std::ptr::eq(*s, schema))
        {
            return json!({"$ref": format!("#/components/schemas/{name}")});
        }
        return request_object(schema);
    }
    response_object(schema)
}

/// A WSME complex type as accepted: unknown keys refused, mandatory keys required and not
/// `null`, every other key optional and `null`-able.
fn request_object(schema: &'static Schema) -> Value {
    let mut props = Map::new();
    let mut required = Vec::new();
    for fl in schema.fields {
        props.insert(
            fl.name.to_string(),
            kind_schema(&fl.kind, !fl.mandatory, true),
        );
        if fl.mandatory {
            required.push(json!(fl.name));
        }
    }
    if schema.tenant_alias {
        let mut t = kind_schema(&s(36), true, true);
        t["deprecated"] = json!(true);
        t["description"] = json!("Alias of `project_id` (wins when both are given).");
        props.insert("tenant_id".into(), t);
    }
    let mut o = json!({"type": "object", "additionalProperties": false, "properties": props});
    if !required.is_empty() {
        o["required"] = json!(required);
    }
    o
}

/// A shape as answered: every attribute present; `mandatory` ones never `null`.
fn response_object(schema: &'static Schema) -> Value {
    let mut props = Map::new();
    for fl in schema.fields {
        props.insert(
            fl.name.to_string(),
            kind_schema(&fl.kind, !fl.mandatory, false),
        );
    }
    let required: Vec<&str> = schema.fields.iter().map(|fl| fl.name).collect();
    json!({"type": "object", "additionalProperties": false, "properties": props,
        "required": required})
}

/// A resource's response object; an attribute no table types is an empty schema (a unit
/// test keeps there being none).
fn resource_schema(r: &Resource) -> Value {
    let mut props = Map::new();
    let mut required = Vec::new();
    for a in r.body_attrs() {
        let v = match r.field(a) {
            Some(fl) => kind_schema(&fl.kind, !fl.mandatory, false),
            None => json!({}),
        };
        props.insert(a.to_string(), v);
        if !r.optional.contains(&a) {
            required.push(json!(a));
        }
    }
    json!({"type": "object", "additionalProperties": false, "properties": props,
        "required": required})
}

/// A full response object: the resource's object minus `drop`, with `nested` attributes as
/// whole objects (`Many`: a required list; `Maybe`: an optional object).
pub(super) fn full_schema(full: &Full) -> Value {
    let mut v = resource_schema(full.of);
    let drop_or_nested =
        |k: &str| full.drop.contains(&k) || full.nested.iter().any(|(n, _)| *n == k);
    if let Some(props) = v["properties"].as_object_mut() {
        props.retain(|k, _| !full.drop.contains(&k.as_str()));
        for (name, nest) in full.nested {
            let p = match nest {
                Nest::Many(c) => json!({"type": "array", "items": schema_ref(c)}),
                Nest::Maybe(c) => json!({"anyOf": [schema_ref(c), {"type": "null"}]}),
            };
            props.insert(name.to_string(), p);
        }
    }
    let mut required: Vec<Value> = v["required"]
        .as_array()
        .map(|r| {
            r.iter()
                .filter(|k| k.as_str().is_some_and(|k| !drop_or_nested(k)))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    for (name, _) in full.nested {
        required.push(json!(name));
    }
    v["required"] = json!(required);
    if !full.non_empty_one_of.is_empty() {
        let any: Vec<Value> = full
            .non_empty_one_of
            .iter()
            .map(|k| json!({"required": [k], "properties": {*k: {"type": "array", "minItems": 1}}}))
            .collect();
        v["anyOf"] = json!(any);
        v["description"] = json!(format!(
            "As `{}`, with related objects whole; at least one of {} is non-empty.",
            full.of.name,
            full.non_empty_one_of
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    v
}

fn schema_ref(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

fn json_content(schema: Value) -> Value {
    json!({"application/json": {"schema": schema}})
}

fn reply_schema(reply: &Reply) -> Option<Value> {
    Some(match reply {
        Reply::Empty => return None,
        Reply::One(key, r) => json!({"type": "object", "additionalProperties": false,
            "required": [key], "properties": {*key: schema_ref(r.name)}}),
        Reply::OneOrFull(key, r, full) => json!({"type": "object", "additionalProperties": false,
            "required": [key], "properties": {*key: {"oneOf": [schema_ref(r.name), schema_ref(full.name)]}}}),
        Reply::Page(key, links, r) => json!({"type": "object", "additionalProperties": false,
            "required": [key, links], "properties": {
                *key: {"type": "array", "items": schema_ref(r.name)},
                *links: {"type": "array", "items": schema_ref("Link")}}}),
        Reply::Bare(key, r) => json!({"type": "object", "additionalProperties": false,
            "required": [key], "properties": {*key: {"type": "array", "items": schema_ref(r.name)}}}),
        Reply::Shape(name) => schema_ref(name),
        Reply::V2 => json!({"type": "string", "const": "v2"}),
        Reply::Health => json!({"type": "string",
            "description": "One reason per backend and line (`OK`, `DISABLED BY FILE`, …)."}),
        Reply::Document => json!({"type": "object", "description": "This OpenAPI document."}),
    })
}

fn param(name: &str, location: &str, schema: Value, description: &str) -> Value {
    json!({"name": name, "in": location, "required": location == "path",
        "schema": schema, "description": description})
}

fn path_param(name: &str) -> Value {
    let description = match name {
        "id" => "The object's id (UUID).",
        "pool_id" => "The pool's id (UUID).",
        "l7policy_id" => "The L7 policy's id (UUID).",
        "project_id" => "The project's id (`defaults`: the configured defaults).",
        "provider" => "The provider driver's name.",
        "name" => "The availability zone's name.",
        _ => "Path parameter.",
    };
    param(name, "path", json!({"type": "string"}), description)
}

fn fields_param() -> Value {
    json!({"name": "fields", "in": "query", "required": false, "style": "form", "explode": true,
        "schema": {"type": "array", "items": {"type": "string"}},
        "description": "Attributes to return (repeatable); the others are left out of the body."})
}

fn query_params(p: &Params) -> Vec<Value> {
    let q = |name: &str, schema: Value, d: &str| param(name, "query", schema, d);
    match p {
        Params::None => vec![],
        Params::Fields => vec![fields_param()],
        Params::Only(list) => list
            .iter()
            .map(|(n, d)| {
                if *n == "fields" {
                    fields_param()
                } else {
                    q(n, json!({"type": "string"}), d)
                }
            })
            .collect(),
        Params::List(r) => {
            let mut out = vec![
                q(
                    "limit",
                    json!({"type": "integer", "minimum": 1}),
                    "Page size (at most `pagination_max_limit`; a larger value is clamped).",
                ),
                q(
                    "marker",
                    json!({"type": "string"}),
                    "Id of the last object of the previous page.",
                ),
                q(
                    "page_reverse",
                    json!({"type": "string", "enum": ["True", "False"]}),
                    "`True`: the page before `marker`.",
                ),
                q(
                    "sort",
                    json!({"type": "string"}),
                    "`key[:asc|desc][,key[:asc|desc]…]`.",
                ),
                q(
                    "sort_key",
                    json!({"type": "string"}),
                    "Sort keys, comma-separated (with `sort_dir`).",
                ),
                q(
                    "sort_dir",
                    json!({"type": "string"}),
                    "`asc` or `desc`, comma-separated, one per `sort_key`.",
                ),
                fields_param(),
            ];
            for (t, d) in [
                ("tags", "Objects having all these tags (comma-separated)."),
                ("tags-any", "Objects having any of these tags."),
                ("not-tags", "Objects not having all of these tags."),
                ("not-tags-any", "Objects having none of these tags."),
            ] {
                out.push(q(t, json!({"type": "string"}), d));
            }
            for a in (r.attrs)() {
                if a == "tags" {
                    continue;
                }
                out.push(q(
                    a,
                    json!({"type": "string"}),
                    "Only objects whose attribute equals this value.",
                ));
            }
            out
        }
    }
}

fn error_responses(o: &Operation) -> Map<String, Value> {
    let authenticated = o.path != "/" && o.path != "/healthcheck";
    let mut codes: Vec<&str> = Vec::new();
    let has_query = !matches!(o.params, Params::None);
    let has_body = !matches!(o.body, Body::None);
    let lbaas = o.path.starts_with("/v2/lbaas/") || o.path.starts_with("/v2/octavia/");
    if lbaas || has_body || has_query {
        codes.push("400");
    }
    if authenticated {
        codes.push("401");
    }
    if lbaas {
        codes.push("403");
    }
    if o.path.contains('{') || o.path == "/healthcheck" {
        codes.push("404");
    }
    codes.push("406");
    if lbaas && o.method != "get" && !o.path.starts_with("/v2/lbaas/quotas") {
        codes.push("409");
    }
    if has_body {
        codes.push("413");
    }
    if lbaas {
        codes.push("500");
    }
    let quota_busy = o.driver && (o.method == "post" || matches!(o.body, Body::List(..)));
    if o.driver {
        codes.push("501");
    }
    let mut out: Map<String, Value> = codes
        .into_iter()
        .map(|c| {
            (
                c.to_string(),
                json!({"$ref": format!("#/components/responses/{c}")}),
            )
        })
        .collect();
    // keystonemiddleware's outage answer on every authenticated path (middleware::auth_layer),
    // plus, on quota'd creates, the quota-usage lock being held
    let unavailable = match (authenticated, quota_busy) {
        (_, true) => Some("503QuotaOrKeystone"),
        (true, false) => Some("503"),
        (false, false) => None,
    };
    if let Some(r) = unavailable {
        out.insert(
            "503".into(),
            json!({"$ref": format!("#/components/responses/{r}")}),
        );
    }
    out
}

/// The healthcheck's three bodies: text (`schema`), HTML, JSON (`detailed` / `reasons`; with
/// `detailed = True` each reason is an object and `now`, `platform` are added).
fn health_content(text: Value) -> Value {
    json!({
        "text/plain": {"schema": text},
        "text/html": {"schema": {"type": "string", "description": "oslo's HTML table of the reasons."}},
        "application/json": {"schema": {"type": "object", "required": ["detailed", "reasons"],
            "properties": {
                "detailed": {"type": "boolean"},
                "reasons": {"type": "array", "items": {"oneOf": [{"type": "string"}, {
                    "type": "object", "required": ["class", "details", "reason"], "properties": {
                        "class": {"type": "string"}, "details": {"type": "string"},
                        "reason": {"type": "string"}}}]}},
                "now": {"type": "string"},
                "platform": {"type": "string"}}}},
    })
}

pub(super) fn operation(o: &Operation) -> Value {
    let mut params: Vec<Value> = o
        .path
        .split('/')
        .filter_map(|seg| seg.strip_prefix('{').and_then(|x| x.strip_suffix('}')))
        .map(path_param)
        .collect();
    params.extend(query_params(&o.params));
    let mut responses = Map::new();
    let description = match o.status {
        201 => "Created.",
        202 => "Accepted.",
        204 => "Deleted.",
        _ => "OK.",
    };
    let description = match o.reply {
        Reply::OneOrFull(_, r, full) => format!(
            "{description} Without children in the request: `{}`; with them: the whole \
             created tree, `{}`.",
            r.name, full.name
        ),
        _ => description.to_string(),
    };
    let mut ok = json!({"description": description});
    if let Some(schema) = reply_schema(&o.reply) {
        ok["content"] = if matches!(o.reply, Reply::Health) {
            health_content(schema)
        } else {
            json!({"application/json": {"schema": schema}})
        };
    }
    if matches!(o.reply, Reply::Health) {
        responses.insert(
            "204".into(),
            json!({"description": "Every backend available and nothing to say: a HEAD, or no \
                    `[healthcheck] backends` with a text answer; also a client passed over \
                    (`allowed_source_ranges`, `ignore_proxied_requests`) that prefers text."}),
        );
        responses.insert(
            "503".into(),
            json!({"description": "A backend reports a problem (`The Octavia database is \
                    unavailable.`, `DISABLED BY FILE`, `FILE PATH MISSING`).",
                "content": health_content(reply_schema(&o.reply).unwrap_or_default())}),
        );
    }
    responses.insert(o.status.to_string(), ok);
    responses.extend(error_responses(o));
    let id = format!(
        "{}{}",
        o.method,
        o.path
            .replace(['/', '.', '-'], "_")
            .replace(['{', '}'], "")
            .trim_end_matches('_')
    );
    let tag = match o.path.split('/').collect::<Vec<_>>().as_slice() {
        [_, "v2", "lbaas", t, ..] | [_, "v2", "octavia", t, ..] => *t,
        _ => "versions",
    };
    let mut v = json!({"operationId": id, "summary": o.summary, "tags": [tag],
        "responses": responses});
    if !params.is_empty() {
        v["parameters"] = json!(params);
    }
    if o.path == "/" || o.path == "/healthcheck" {
        v["security"] = json!([]);
    }
    let body = match o.body {
        Body::None => None,
        Body::Wrapped(w, schema) => Some(json!({"type": "object", "additionalProperties": false,
            "required": [w], "properties": {w: object_schema(schema, true)}})),
        Body::List(k, schema) => Some(json!({"type": "object", "additionalProperties": false,
            "required": [k], "properties": {k: {"type": "array",
                "items": object_schema(schema, true)}}})),
    };
    if let Some(b) = body {
        v["requestBody"] = json!({"required": true, "content": json_content(b)});
    }
    v
}

pub(super) fn components() -> Value {
    let mut schemas = Map::new();
    for (name, schema) in REQUEST_SCHEMAS {
        schemas.insert(name.to_string(), request_object(schema));
    }
    for r in RESOURCES {
        schemas.insert(r.name.to_string(), resource_schema(r));
    }
    for full in FULLS {
        schemas.insert(full.name.to_string(), full_schema(full));
    }
    for (name, schema) in SHAPES {
        schemas.insert(name.to_string(), response_object(schema));
    }
    // the Keystone-outage fault (context::AuthRejection::KeystoneUnavailable)
    schemas.insert(
        "KeystoneUnavailable".into(),
        json!({"allOf": [schema_ref("Fault"), {"properties": {
            "faultcode": {"const": "Server"}, "faultstring": {"const": KEYSTONE_UNAVAILABLE}}}]}),
    );
    // pecan's `code` is the number, but the status line for 413 (middleware::body_limit)
    if let Some(code) = schemas
        .get_mut("PecanError")
        .and_then(|p| p.pointer_mut("/properties/code"))
    {
        *code = json!({"type": ["integer", "string"]});
    }
    let fault = |d: &str| json!({"description": d, "content": json_content(schema_ref("Fault"))});
    let responses = json!({
        "400": fault("Invalid request: WSME validation text (`Invalid input for field/attribute …`, `Unknown attribute for argument …`, `Unknown argument: …`) or a validation failure."),
        "401": {"description": "Missing or invalid `X-Auth-Token`.",
            "content": json_content(schema_ref("KeystoneError"))},
        "403": fault("Policy does not allow this request, or a quota is exhausted."),
        "404": {"description": "No such object (WSME fault), or no such path (pecan error).",
            "content": json_content(json!({"anyOf": [schema_ref("Fault"), schema_ref("PecanError")]}))},
        "406": {"description": "`Accept` does not admit `application/json`.",
            "content": json_content(schema_ref("PecanError"))},
        "409": fault("The load balancer is immutable (a PENDING_* state), the object is in use, or the name is taken."),
        "413": {"description": "Body larger than `max_request_body_size`.",
            "content": json_content(schema_ref("PecanError"))},
        "500": fault("Internal error, or the provider driver reported an error."),
        "501": fault("The provider is not loaded, or does not support this action / option."),
        "503": {"description": format!("The token could not be validated: Keystone is unreachable or failing (keystonemiddleware's `{KEYSTONE_UNAVAILABLE}`); or another service the request needs is unreachable or did not answer in time: `The database service is temporarily unavailable.`, `The Neutron service …`, `The OVN Northbound service …` (nothing was changed; retry)."),
            "content": json_content(json!({"anyOf": [schema_ref("KeystoneUnavailable"), schema_ref("Fault")]}))},
        "503QuotaOrKeystone": {"description": format!("The token could not be validated: Keystone is unreachable or failing (`{KEYSTONE_UNAVAILABLE}`, `KeystoneUnavailable`); or another request is updating this project's quota usage, retry; or the database, Neutron or the OVN Northbound is unavailable (`The <service> service is temporarily unavailable.`)."),
            "content": json_content(schema_ref("Fault"))},
    });
    json!({
        "schemas": schemas,
        "responses": responses,
        "securitySchemes": {"keystone": {"type": "apiKey", "in": "header", "name": "X-Auth-Token",
            "description": "A Keystone token (with `auth_strategy = noauth`: none; `X-Project-Id` sets the project)."}},
    })
}
