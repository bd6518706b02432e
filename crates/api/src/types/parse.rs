//! The WSME gate: a request body parsed and coerced as WSME's `fromjson` does for a controller
//! argument ([`parse_body`], [`parse_list_body`]), each value then validated
//! (`validate_value`); failures carry WSME's exact texts.

use serde_json::{Map, Value};

use super::echo::echo;
use super::python::{Coercion, py_float, py_int, py_repr, py_str};
use super::schema::{Kind, Schema, s};
use super::typed::Obj;
use super::validate::validate;
use crate::fault::ApiError;

/// [`parse_body`] then [`Obj::typed`]: the WSME gate's answer for a bad body, else the typed
/// body.
pub fn parse_typed<T: serde::de::DeserializeOwned>(
    body: &[u8],
    argname: &str,
    wrapper: &str,
    schema: &'static Schema,
) -> Result<T, ApiError> {
    parse_body(body, argname, wrapper, schema)?.typed()
}

/// [`parse_list_body`] then [`Obj::typed`] of each item.
pub fn parse_list_typed<T: serde::de::DeserializeOwned>(
    body: &[u8],
    argname: &str,
    key: &str,
    item: &'static Schema,
) -> Result<Vec<T>, ApiError> {
    parse_list_body(body, argname, key, item)?
        .into_iter()
        .map(Obj::typed)
        .collect()
}

/// Why a value failed.
enum Fail {
    /// A `fromjson` coercion `ValueError`: reported against the argument with the whole body.
    Coerce(Coercion),
    /// Already a final API error (field-level or unknown attribute).
    Api(ApiError),
}

/// Parse a request body `{"<wrapper>": {...}}` as WSME does for a controller argument
/// named `argname` (e.g. `load_balancer`, `listener_`), returning the inner object.
///
/// Errors: invalid JSON → 400 `Request is not in valid JSON format`; unknown keys → 400
/// `Unknown attribute for argument <argname>[.<path>]: <keys>`; coercion failures → 400
/// `Invalid input for field/attribute <argname>. Value: '<body as Python dict>'. <reason>`;
/// validation failures → 400 naming the field; a missing wrapper (e.g. a `{}` body, a 500 in
/// the reference) → 400 `Invalid input for field/attribute <wrapper>. Value: 'None'. Mandatory field missing.`
pub fn parse_body(
    body: &[u8],
    argname: &str,
    wrapper: &str,
    schema: &'static Schema,
) -> Result<Obj, ApiError> {
    let root: Value = serde_json::from_slice(body)
        .map_err(|_| ApiError::BadRequest("Request is not in valid JSON format".to_string()))?;
    let Value::Object(map) = &root else {
        return Err(ApiError::invalid_input(
            argname,
            py_repr(&root),
            "Value not a valid dict",
        ));
    };
    let mut unknown: Vec<String> = map
        .keys()
        .filter(|k| k.as_str() != wrapper)
        .cloned()
        .collect();
    if !unknown.is_empty() {
        unknown.sort();
        return Err(ApiError::UnknownAttribute {
            arg: argname.to_string(),
            attrs: unknown,
        });
    }
    let inner = match map.get(wrapper) {
        None | Some(Value::Null) => {
            return Err(ApiError::invalid_input(
                wrapper,
                "None",
                "Mandatory field missing.",
            ));
        }
        Some(v) => v,
    };
    match from_json_object(schema, inner) {
        Ok(Value::Object(o)) => Ok(Obj(o)),
        Ok(_) => Err(ApiError::invalid_input(
            wrapper,
            "None",
            "Mandatory field missing.",
        )),
        Err(Fail::Coerce(why)) => Err(ApiError::invalid_input(
            argname,
            echo(body, &root),
            why.to_string(),
        )),
        Err(Fail::Api(ApiError::UnknownAttribute { arg, attrs })) => {
            Err(ApiError::UnknownAttribute {
                arg: if arg.is_empty() {
                    format!("{argname}.{wrapper}")
                } else {
                    format!("{argname}.{wrapper}.{arg}")
                },
                attrs,
            })
        }
        Err(Fail::Api(e)) => Err(e),
    }
}

/// Parse a body whose root type holds one list attribute, e.g. `MembersRootPUT`
/// (`{"members": [MemberPOST…]}` for the argument `members_`), returning the list items.
///
/// Errors as [`parse_body`], with paths `<argname>` / `<argname>.<key>`; a missing or null
/// list → 400 `Invalid input for field/attribute <key>. Value: 'None'. Mandatory field missing.`
pub fn parse_list_body(
    body: &[u8],
    argname: &str,
    key: &str,
    item: &'static Schema,
) -> Result<Vec<Obj>, ApiError> {
    let root: Value = serde_json::from_slice(body)
        .map_err(|_| ApiError::BadRequest("Request is not in valid JSON format".to_string()))?;
    let Value::Object(map) = &root else {
        return Err(ApiError::invalid_input(
            argname,
            py_repr(&root),
            "Value not a valid dict",
        ));
    };
    let mut unknown: Vec<String> = map.keys().filter(|k| k.as_str() != key).cloned().collect();
    if !unknown.is_empty() {
        unknown.sort();
        return Err(ApiError::UnknownAttribute {
            arg: argname.to_string(),
            attrs: unknown,
        });
    }
    let list = match map.get(key) {
        None | Some(Value::Null) => {
            return Err(ApiError::invalid_input(
                key,
                "None",
                "Mandatory field missing.",
            ));
        }
        Some(v) => v,
    };
    match convert(&Kind::ObjectList(item), list) {
        Ok(Value::Array(items)) => Ok(items
            .into_iter()
            .filter_map(|v| match v {
                Value::Object(o) => Some(Obj(o)),
                _ => None,
            })
            .collect()),
        Ok(_) => Err(ApiError::invalid_input(
            key,
            "None",
            "Mandatory field missing.",
        )),
        Err(Fail::Coerce(why)) => Err(ApiError::invalid_input(
            argname,
            echo(body, &root),
            why.to_string(),
        )),
        Err(Fail::Api(ApiError::UnknownAttribute { arg, attrs })) => {
            Err(ApiError::UnknownAttribute {
                arg: if arg.is_empty() {
                    format!("{argname}.{key}")
                } else {
                    format!("{argname}.{key}.{arg}")
                },
                attrs,
            })
        }
        Err(Fail::Api(e)) => Err(e),
    }
}

fn from_json_object(schema: &'static Schema, value: &Value) -> Result<Value, Fail> {
    let Value::Object(map) = value else {
        return Err(Fail::Coerce(Coercion::NotDict(py_str(value))));
    };
    let mut unknown: Vec<String> = map
        .keys()
        .filter(|k| !(schema.tenant_alias && k.as_str() == "tenant_id"))
        .filter(|k| !schema.fields.iter().any(|f| f.name == k.as_str()))
        .cloned()
        .collect();
    if !unknown.is_empty() {
        unknown.sort();
        return Err(Fail::Api(ApiError::UnknownAttribute {
            arg: String::new(),
            attrs: unknown,
        }));
    }
    let mut out = Map::new();
    for field in schema.fields {
        match map.get(field.name) {
            Some(Value::Null) if field.mandatory && !field.null_passes => {
                return Err(Fail::Api(ApiError::invalid_input(
                    field.name,
                    "None",
                    "Mandatory field missing.",
                )));
            }
            Some(v) => {
                let conv = match convert(&field.kind, v) {
                    Ok(c) => c,
                    Err(Fail::Api(ApiError::UnknownAttribute { arg, attrs })) => {
                        let arg = if arg.is_empty() {
                            field.name.to_string()
                        } else {
                            format!("{}.{arg}", field.name)
                        };
                        return Err(Fail::Api(ApiError::UnknownAttribute { arg, attrs }));
                    }
                    Err(e) => return Err(e),
                };
                let valid = validate(&field.kind, conv).map_err(|(shown, reason)| {
                    Fail::Api(ApiError::invalid_input(field.name, shown, reason))
                })?;
                out.insert(field.name.to_string(), valid);
            }
            None if field.mandatory => {
                return Err(Fail::Api(ApiError::invalid_input(
                    field.name,
                    "None",
                    "Mandatory field missing.",
                )));
            }
            None => {}
        }
    }
    if schema.tenant_alias
        && let Some(t) = map.get("tenant_id")
    {
        let valid = validate(&s(36), t.clone()).map_err(|(shown, reason)| {
            Fail::Api(ApiError::invalid_input("tenant_id", shown, reason))
        })?;
        out.insert("project_id".to_string(), valid);
    }
    Ok(Value::Object(out))
}

/// WSME `fromjson`: coercions whose `ValueError` is reported against the whole argument.
fn convert(kind: &Kind, v: &Value) -> Result<Value, Fail> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    match kind {
        Kind::Int { .. } => py_int(v).map(Value::from).map_err(Fail::Coerce),
        Kind::FloatEnum(_) => py_float(v).map_err(Fail::Coerce),
        Kind::Bool => match v {
            Value::Bool(b) => Ok(Value::Bool(*b)),
            Value::Number(n) if n.is_i64() || n.is_u64() => {
                Ok(Value::Bool(n.as_f64() != Some(0.0)))
            }
            Value::String(s) if ["true", "t", "yes", "y", "on", "1"].contains(&s.as_str()) => {
                Ok(Value::Bool(true))
            }
            Value::String(s) if ["false", "f", "no", "n", "off", "0"].contains(&s.as_str()) => {
                Ok(Value::Bool(false))
            }
            other => Err(Fail::Coerce(Coercion::NotBool(py_str(other)))),
        },
        Kind::List(item) | Kind::Joined { item, .. } => match v {
            Value::Array(a) => a
                .iter()
                .map(|i| convert(item, i))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array),
            other => Err(Fail::Coerce(Coercion::NotList(py_str(other)))),
        },
        Kind::ObjectList(schema) => match v {
            Value::Array(a) => a
                .iter()
                .map(|i| {
                    if i.is_null() {
                        Ok(Value::Null)
                    } else {
                        from_json_object(schema, i)
                    }
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array),
            other => Err(Fail::Coerce(Coercion::NotList(py_str(other)))),
        },
        Kind::StrDict(_) => match v {
            Value::Object(_) => Ok(v.clone()),
            other => Err(Fail::Coerce(Coercion::NotDict(py_str(other)))),
        },
        Kind::Object(schema) => from_json_object(schema, v),
        _ => Ok(v.clone()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::types::{f, int, m};
    use serde_json::json;

    static INNER: Schema = Schema {
        fields: &[m("subnet_id", Kind::Uuid)],
        tenant_alias: false,
    };
    static T: Schema = Schema {
        fields: &[
            f("name", s(255)),
            m("protocol_port", int(Some(1), Some(65535))),
            f("admin_state_up", Kind::Bool),
            f("vip_subnet_id", Kind::Uuid),
            f("protocol", Kind::Enum(&["TCP", "UDP"])),
            f("extra", Kind::ObjectList(&INNER)),
            f("cidrs", Kind::List(&Kind::Cidr)),
            f("project_id", s(36)),
        ],
        tenant_alias: true,
    };

    // String on purpose: these tests compare the fault texts the client reads.
    fn p(body: Value) -> Result<Obj, String> {
        parse_body(body.to_string().as_bytes(), "listener_", "listener", &T)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn unknown_attributes_name_the_argument_path() {
        assert_eq!(
            p(json!({"listener": {"protocol_port": 1, "foo": 1}})).unwrap_err(),
            "Unknown attribute for argument listener_.listener: foo"
        );
        assert_eq!(
            p(json!({"listener": {"protocol_port": 1, "b": 1, "a": 2}})).unwrap_err(),
            "Unknown attributes for argument listener_.listener: a, b"
        );
        assert_eq!(
            p(json!({"other": {}})).unwrap_err(),
            "Unknown attribute for argument listener_: other"
        );
        assert_eq!(
            p(json!({"listener": {"protocol_port": 1, "extra": [{"subnet_id": "x", "z": 1}]}}))
                .unwrap_err(),
            "Unknown attribute for argument listener_.listener.extra: z"
        );
    }

    #[test]
    fn echoed_bodies_keep_the_clients_key_order() {
        let body = br#"{"listener": {"protocol_port": "x", "name": "n", "admin_state_up": true}}"#;
        let e = parse_body(body, "listener_", "listener", &T).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Invalid input for field/attribute listener_. Value: '{'listener': {'protocol_port': 'x', 'name': 'n', 'admin_state_up': True}}'. invalid literal for int() with base 10: 'x'"
        );
    }

    #[test]
    fn coercion_failures_echo_the_body() {
        assert_eq!(
            p(json!({"listener": {"protocol_port": "eighty"}})).unwrap_err(),
            "Invalid input for field/attribute listener_. Value: '{'listener': {'protocol_port': 'eighty'}}'. invalid literal for int() with base 10: 'eighty'"
        );
        assert_eq!(
            p(json!({"listener": {"protocol_port": 1, "admin_state_up": "maybe"}})).unwrap_err(),
            "Invalid input for field/attribute listener_. Value: '{'listener': {'admin_state_up': 'maybe', 'protocol_port': 1}}'. Value not an unambiguous boolean: maybe"
        );
    }

    #[test]
    fn field_failures_name_the_field() {
        assert_eq!(
            p(json!({"listener": {"protocol_port": 0}})).unwrap_err(),
            "Invalid input for field/attribute protocol_port. Value: '0'. Value should be greater or equal to 1"
        );
        assert_eq!(
            p(json!({"listener": {"protocol_port": 1, "vip_subnet_id": ""}})).unwrap_err(),
            "Invalid input for field/attribute vip_subnet_id. Value: ''. Value should be UUID format"
        );
        assert_eq!(
            p(json!({"listener": {}})).unwrap_err(),
            "Invalid input for field/attribute protocol_port. Value: 'None'. Mandatory field missing."
        );
        assert_eq!(
            p(json!({"listener": {"protocol_port": 1, "protocol": "X"}})).unwrap_err(),
            "Invalid input for field/attribute protocol. Value: 'X'. Value should be one of: TCP, UDP"
        );
        assert_eq!(
            p(json!({"listener": {"protocol_port": 1, "name": 5}})).unwrap_err(),
            "Invalid input for field/attribute name. Value: '5'. Value should be string"
        );
        assert_eq!(
            p(json!({})).unwrap_err(),
            "Invalid input for field/attribute listener. Value: 'None'. Mandatory field missing."
        );
        assert_eq!(
            parse_body(b"{", "a", "b", &T).unwrap_err().to_string(),
            "Request is not in valid JSON format"
        );
    }

    #[test]
    fn coercions_and_normalisation() {
        let o = p(
            json!({"listener": {"protocol_port": "80", "admin_state_up": "yes", "tenant_id": "p1",
            "vip_subnet_id": "6A0A707C45EF4758B533E55ADDDBA8CE", "cidrs": ["10.0.0.5/24"]}}),
        )
        .unwrap();
        let o = &o.0;
        assert_eq!(o["protocol_port"], json!(80));
        assert_eq!(o["admin_state_up"], json!(true));
        assert_eq!(o["project_id"], json!("p1"));
        assert_eq!(
            o["vip_subnet_id"],
            json!("6a0a707c-45ef-4758-b533-e55adddba8ce")
        );
        assert_eq!(o["cidrs"], json!(["10.0.0.0/24"]));
        assert!(!o.contains_key("name"));
    }
}
