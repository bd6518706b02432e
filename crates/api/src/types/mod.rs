//! Request and response typing, as Octavia's WSME types (`octavia/api/v2/types/*.py`).
//!
//! Bodies are parsed by a small WSME re-implementation ([`parse_body`]) driven by
//! declarative [`Schema`]s, so that failures carry WSME's exact texts:
//! unknown keys → `Unknown attribute for argument <arg>: <names>`; coercion failures (a string
//! for an integer, a non-boolean, a non-list) name the *argument* and echo the whole body as a
//! Python dict; range/UUID/enum/length failures name the innermost field.
//!
//! By job: `schema` (the attribute tables' [`Kind`]s and bounds), `parse` (the gate:
//! [`parse_body`], coercion), `validate` (WSME `validate_value`), `echo` (the body as WSME
//! prints it), `typed` ([`Obj`] into the resource's struct, [`Patch`]), `python` (Python's
//! `repr`/`str`/`int`/`float`), `pattern` (the `pattern=` checks); each resource's bodies are in its folder (`crate::listener::body`, …).

pub(crate) mod column;
mod echo;
mod extract;
mod parse;
pub(crate) mod pattern;
mod python;
mod schema;
mod typed;
mod validate;

pub(crate) use column::declared;
pub use extract::{Wsme, WsmeBody};
#[cfg(test)]
pub(crate) use parse::parse_body;
pub use parse::{parse_list_typed, parse_typed};
pub use python::py_repr;
pub(crate) use schema::wsme_body;
pub use schema::{
    ALL_OPTIONAL, Derive, Field, INT_COLUMN_MAX, INT_COLUMN_MIN, JOINED_COLUMN_MAX, Kind, Schema,
    TAGS, URL_COLUMN_MAX, attr_name, derive, derived_len, f, int, m, mn, s,
};
#[cfg(test)]
pub(crate) use typed::struct_fields;
pub use typed::{Obj, Patch, Strings};
pub(crate) use typed::{model_sent, put_sent};
pub use validate::normalise_cidr;
