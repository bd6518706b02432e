//! The types that describe a collection's [`Spec`] (its API attributes as SQL over the listed
//! table `t`, as the in-memory path sees them rendered); `crate::view::view_decl!` declares
//! each collection's spec beside its view (`crate::load_balancer::view::LB`,
//! `crate::flavors::FLAVOR`, …).

/// How an attribute's value is typed (for filter values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A string.
    Text,
    /// An integer (a filter value is read as a number: `80.0` matches 80).
    Int,
    /// A boolean (a filter value through oslo's `bool_from_string`).
    Bool,
    /// A datetime, rendered `%Y-%m-%dT%H:%M:%S` (a filter value must be exactly that).
    Time,
    /// A float rendered to two decimals, listed as the integer `ROUND(value * 100)` (a filter
    /// value is read as a number: `1.10` matches 1.1).
    Hundredths,
}

/// How one API attribute is listed in SQL. Expressions use the listed table as `t`.
#[derive(Debug, Clone, Copy)]
pub enum Attr {
    /// A scalar: filters by equality, sorts.
    Val(&'static str, Kind),
    /// A nullable string column rendered `""` when NULL: filters by equality (`= ?`, so an
    /// index on the column serves it; `""` matches NULL and empty), sorts as `COALESCE(c, '')`.
    Str(&'static str),
    /// A list (of ids or strings): a filter is this condition with the value as its one `?`.
    /// Not a sort key ([`crate::pagination::sort_keys`]).
    Has(&'static str),
    /// A `ScalarListType` column (comma-joined strings, rendered as a list): a filter matches
    /// one element. Not a sort key.
    Csv(&'static str),
    /// An object or a list of objects (`insert_headers`, `session_persistence`,
    /// `additional_vips`): no filter value equals it, as in the in-memory comparison. Not a
    /// sort key.
    Never,
    /// Not in the spec: the in-memory path answers (no collection has one; a unit test keeps
    /// it so).
    Memory,
}

/// The SQL shape of one collection.
#[derive(Debug)]
pub struct Spec {
    /// `(API attribute, how)` in Octavia's declaration order, `tenant_id` beside
    /// `project_id`; an attribute missing here is [`Attr::Memory`].
    pub attrs: &'static [(&'static str, Attr)],
    /// `(alias prefix, join)`: the join is added when a used expression contains the prefix.
    pub joins: &'static [(&'static str, &'static str)],
    /// Whether the resource has tags (else tag filters see an empty set).
    pub tags: bool,
}

impl Spec {
    /// How `name` is listed (`tenant_id` is `project_id`); [`Attr::Memory`] when absent.
    pub(super) fn attr(&self, name: &str) -> Attr {
        let name = if name == "tenant_id" {
            "project_id"
        } else {
            name
        };
        self.attrs
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(Attr::Memory, |(_, a)| *a)
    }
}
