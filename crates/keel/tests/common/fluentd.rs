//! kolla-ansible's fluentd parse of oslo.log files:
//! `ansible/roles/fluentd/templates/conf/input/00-global.conf.j2`
//! (openstack/kolla-ansible 1a681814eb19a4840ca307a25f21b2907b432272).

/// That file's `format_firstline`.
pub const KOLLA_FIRSTLINE: &str = r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}.\d{3} \d+ \S+ \S+ \[.*\]";
/// The same file's `format1` (Ruby's `(?<name>…)` groups read the same in Rust's regex).
pub const KOLLA_FORMAT1: &str = r"^(?<Timestamp>\S+ \S+) (?<Pid>\d+) (?<log_level>\S+) (?<python_module>\S+) ((?:\[)(?:None|req-)(?<global_request_id>\S+)? (?:None|req-)(?<request_id>\S+) (?<user_id>\S+) (?<tenant_id>\S+) (?<domain_id>\S+) (?<system_scope>\S+) (?<user_domain>\S+) (?<project_domain>\S+)(?:\]))?(?<Payload>.*)?$";
