//! Member request types, as `octavia/api/v2/types/member.py`.

use serde::Deserialize;

use super::{Kind, Patch, Schema, Strings, TAGS, f, int, m, s};

const PORT: Kind = int(Some(1), Some(65535));
const WEIGHT: Kind = int(Some(0), Some(256));

/// `MemberPOST`.
pub static MEMBER_POST: Schema = Schema {
    fields: &[
        f("name", s(255)),
        f("admin_state_up", Kind::Bool),
        m("address", Kind::Ip),
        m("protocol_port", PORT),
        f("weight", WEIGHT),
        f("backup", Kind::Bool),
        f("subnet_id", Kind::Uuid),
        f("project_id", s(36)),
        f("monitor_port", PORT),
        f("monitor_address", Kind::Ip),
        f("tags", TAGS),
        f("request_sriov", Kind::Bool),
    ],
    tenant_alias: true,
};

/// `MemberSingleCreate` (graph create).
pub static MEMBER_SINGLE: Schema = Schema {
    fields: &[
        f("name", s(255)),
        f("admin_state_up", Kind::Bool),
        m("address", Kind::Ip),
        m("protocol_port", PORT),
        f("weight", WEIGHT),
        f("backup", Kind::Bool),
        f("subnet_id", Kind::Uuid),
        f("monitor_port", PORT),
        f("monitor_address", Kind::Ip),
        f("tags", TAGS),
        f("request_sriov", Kind::Bool),
    ],
    tenant_alias: false,
};

/// `MemberPUT`.
pub static MEMBER_PUT: Schema = Schema {
    fields: &[
        f("name", s(255)),
        f("admin_state_up", Kind::Bool),
        f("weight", WEIGHT),
        f("backup", Kind::Bool),
        f("monitor_port", PORT),
        f("monitor_address", Kind::Ip),
        f("tags", TAGS),
    ],
    tenant_alias: false,
};

/// `MembersRootPUT`'s list body: `{"members": [MemberPOST…]}`.
pub static MEMBERS_PUT: Schema = Schema {
    fields: &[f("members", Kind::ObjectList(&MEMBER_POST))],
    tenant_alias: false,
};

/// A validated `MemberPOST` body (also a batch entry and a graph's `MemberSingleCreate`, its
/// subset) as [`MEMBER_POST`] declares it; `admin_state_up: null` is false (Octavia's
/// `to_dict`), left out true; a `null` weight is 1, a `null` backup or `request_sriov` false.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MemberPost {
    /// `name` (a batch entry changes it only when given).
    pub name: Patch<String>,
    /// `admin_state_up`.
    pub admin_state_up: Patch<bool>,
    /// `address` (mandatory).
    pub address: String,
    /// `protocol_port` (mandatory, 1..65535).
    pub protocol_port: i64,
    /// `weight` (0..256; left out or `null`: 1).
    pub weight: Option<i64>,
    /// `backup`.
    pub backup: Option<bool>,
    /// `subnet_id`.
    pub subnet_id: Option<String>,
    /// `project_id` (or `tenant_id`); the member takes its load balancer's project.
    pub project_id: Option<String>,
    /// `monitor_port`.
    pub monitor_port: Option<i64>,
    /// `monitor_address`.
    pub monitor_address: Option<String>,
    /// `tags`.
    pub tags: Option<Strings>,
    /// `request_sriov`.
    pub request_sriov: Option<bool>,
}

/// A validated `MemberPUT` body as [`MEMBER_PUT`] declares it: each attribute left out
/// (unchanged), `null` or a value.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MemberPut {
    /// `name`.
    pub name: Patch<String>,
    /// `admin_state_up` (`null`: false).
    pub admin_state_up: Patch<bool>,
    /// `weight` (`null`: 1).
    pub weight: Patch<i64>,
    /// `backup` (`null`: false).
    pub backup: Patch<bool>,
    /// `monitor_port`.
    pub monitor_port: Patch<i64>,
    /// `monitor_address`.
    pub monitor_address: Patch<String>,
    /// `tags` (`null`: none).
    pub tags: Patch<Strings>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{assert_typed_as, struct_fields};

    #[test]
    fn typed_bodies_declare_the_schema_attributes() {
        assert_typed_as::<MemberPost>(&MEMBER_POST);
        assert_typed_as::<MemberPut>(&MEMBER_PUT);
        let post = struct_fields::<MemberPost>();
        for f in MEMBER_SINGLE.fields {
            assert!(post.contains(&f.name), "{}", f.name);
        }
    }
}
