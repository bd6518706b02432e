//! ovsdb (to be filled).
