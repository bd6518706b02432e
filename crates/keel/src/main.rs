//! `keel`: the Octavia v2 API and its OVN provider in one process.
//!
//! Subcommands: `serve` (the API, the OVN provider and its agent), `db upgrade`
//! (create the Octavia schema at alembic head `fabf4983846b`), `ovn-db-sync`.

mod config;

fn main() {}
