//! ovn-provider (to be filled).
