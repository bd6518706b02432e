//! octavia-db (to be filled).
