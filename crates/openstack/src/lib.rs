//! openstack (to be filled).
