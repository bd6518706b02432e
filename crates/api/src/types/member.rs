//! Member request types, as `octavia/api/v2/types/member.py`.

use super::{Kind, Schema, TAGS, f, int, m, s};

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
