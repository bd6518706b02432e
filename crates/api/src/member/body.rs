//! Member request types, as `octavia/api/v2/types/member.py`.

use crate::types::wsme_body;

use crate::types::{Kind, Patch, Strings, TAGS, int, s};

const PORT: Kind = int(Some(1), Some(65535));
const WEIGHT: Kind = int(Some(0), Some(256));

wsme_body! {
    /// `MemberPOST`.
    pub static MEMBER_POST, tenant_alias = true, wsme = ("member_", "member"),
        creates = octavia_db::MemberRow;
    /// A validated `MemberPOST` body (also a batch entry and a graph's `MemberSingleCreate`, its
    /// subset) as [`MEMBER_POST`] declares it, with the `member` columns a create writes
    /// (`admin_state_up: null` is false, Octavia's `to_dict`).
    pub struct MemberPost {
        /// `name` (a batch entry changes it only when given).
        name: Patch<String> = f(s(255)) => name,
        admin_state_up: Patch<bool> = f(Kind::Bool) => enabled or true null false,
        /// `address` (mandatory).
        address: String = m(Kind::Ip) => ip_address,
        /// `protocol_port` (mandatory, 1..65535).
        protocol_port: i64 = m(PORT) => protocol_port,
        /// `weight` (0..256).
        weight: Option<i64> = f(WEIGHT) => weight or 1,
        backup: Option<bool> = f(Kind::Bool) => backup or false,
        subnet_id: Option<String> = f(Kind::Uuid) => subnet_id,
        /// `project_id` (or `tenant_id`); the member takes its load balancer's project.
        project_id: Option<String> = f(s(36)),
        monitor_port: Option<i64> = f(PORT) => monitor_port,
        monitor_address: Option<String> = f(Kind::Ip) => monitor_address,
        tags: Option<Strings> = f(TAGS),
        /// `request_sriov` (`true`: the `vnic_type` column `direct`, refused without a flavor
        /// allowing it).
        request_sriov: Option<bool> = f(Kind::Bool),
    }
    /// `MemberSingleCreate` (graph create): `MemberPOST` without the project.
    pub static MEMBER_SINGLE = crate::types::Derive {
        leave_out: &["project_id"],
        optional: false,
        retype: None,
    }, tenant_alias = false;
}

wsme_body! {
    /// `MemberPUT`.
    pub static MEMBER_PUT, tenant_alias = false, wsme = ("member_", "member"),
        updates = octavia_db::MemberRow;
    /// A validated `MemberPUT` body as [`MEMBER_PUT`] declares it: each attribute left out
    /// (unchanged), `null` or a value, with the `member` column it changes.
    pub struct MemberPut {
        name: Patch<String> = f(s(255)) => name,
        admin_state_up: Patch<bool> = f(Kind::Bool) => enabled or false,
        weight: Patch<i64> = f(WEIGHT) => weight or 1,
        backup: Patch<bool> = f(Kind::Bool) => backup or false,
        monitor_port: Patch<i64> = f(PORT) => monitor_port,
        monitor_address: Patch<String> = f(Kind::Ip) => monitor_address,
        /// `tags` (`null`: none).
        tags: Patch<Strings> = f(TAGS),
    }
}
