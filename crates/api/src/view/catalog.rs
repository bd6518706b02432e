//! The response objects of the operator catalog: flavors and availability zones, as
//! `octavia/api/v2/types/flavors.py` `FlavorResponse` and `availability_zones.py`
//! `AvailabilityZoneResponse`, and their profiles, as `flavor_profile.py`
//! `FlavorProfileResponse` and `availability_zone_profile.py`
//! `AvailabilityZoneProfileResponse`.

use octavia_db::{AvailabilityZoneRow, FlavorRow};
use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

use super::fields::or_empty;

/// A flavor response object; fields in sorted key order (see [`crate::view`]).
#[derive(Serialize)]
pub struct FlavorView<'a> {
    description: &'a str,
    enabled: bool,
    flavor_profile_id: &'a str,
    id: &'a str,
    name: &'a str,
}

impl<'a> FlavorView<'a> {
    /// The response object of `f` (`""` for a NULL description).
    pub fn new(f: &'a FlavorRow) -> Self {
        Self {
            description: or_empty(&f.description),
            enabled: f.enabled,
            flavor_profile_id: &f.flavor_profile_id,
            id: &f.id,
            name: &f.name,
        }
    }
}

/// An availability zone response object; fields in sorted key order.
#[derive(Serialize)]
pub struct AzView<'a> {
    availability_zone_profile_id: &'a str,
    description: &'a str,
    enabled: bool,
    name: &'a str,
}

impl<'a> AzView<'a> {
    /// The response object of `z` (`""` for a NULL description).
    pub fn new(z: &'a AvailabilityZoneRow) -> Self {
        Self {
            availability_zone_profile_id: &z.availability_zone_profile_id,
            description: or_empty(&z.description),
            enabled: z.enabled,
            name: &z.name,
        }
    }
}

/// A flavor profile or availability zone profile response object: `id`, `name`,
/// `provider_name` and the metadata (JSON text, as stored) under `data_key` (`flavor_data`,
/// `availability_zone_data`; both sort before `id`, so it is written first).
pub struct ProfileView<'a> {
    data_key: &'static str,
    data: &'a str,
    id: &'a str,
    name: &'a str,
    provider_name: &'a str,
}

impl<'a> ProfileView<'a> {
    /// The response object of a profile's `(id, name, provider_name, data)`.
    pub fn new(data_key: &'static str, parts: (&'a str, &'a str, &'a str, &'a str)) -> Self {
        let (id, name, provider_name, data) = parts;
        Self {
            data_key,
            data,
            id,
            name,
            provider_name,
        }
    }
}

impl Serialize for ProfileView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Profile", 4)?;
        st.serialize_field(self.data_key, self.data)?;
        st.serialize_field("id", self.id)?;
        st.serialize_field("name", self.name)?;
        st.serialize_field("provider_name", self.provider_name)?;
        st.end()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::profiles::Profile;
    use crate::view::testing::same_as_map;
    use octavia_db::{AvailabilityZoneProfileRow, FlavorProfileRow};
    use serde_json::json;

    #[test]
    fn catalog_views_text_equals_the_maps_they_replaced() {
        for description in [Some("d\u{e9}\n".to_string()), None] {
            let f = FlavorRow {
                id: "i\"d".into(),
                name: "n".into(),
                description: description.clone(),
                enabled: description.is_some(),
                flavor_profile_id: "fp".into(),
            };
            // `Catalog::render` before the view
            let map = json!({"id": f.id, "name": f.name,
                "description": f.description.clone().unwrap_or_default(),
                "enabled": f.enabled, "flavor_profile_id": f.flavor_profile_id});
            same_as_map(&FlavorView::new(&f), map);
            let z = AvailabilityZoneRow {
                name: "z\"1".into(),
                description,
                enabled: true,
                availability_zone_profile_id: "azp".into(),
            };
            let map = json!({"name": z.name, "description": z.description.clone().unwrap_or_default(),
                "enabled": z.enabled,
                "availability_zone_profile_id": z.availability_zone_profile_id});
            same_as_map(&AzView::new(&z), map);
        }
    }

    fn check_profile<P: Profile>(p: &P) {
        let (id, name, provider, data) = p.parts();
        // `profiles::render` before the view
        let map = json!({"id": id, "name": name, "provider_name": provider, P::DATA: data});
        same_as_map(&ProfileView::new(P::DATA, p.parts()), map);
    }

    #[test]
    fn profile_views_text_equals_the_maps_they_replaced() {
        check_profile(&FlavorProfileRow {
            id: "i\"d".into(),
            name: "n\u{e9}".into(),
            provider_name: "ovn".into(),
            flavor_data: "{\"loadbalancer_topology\": \"SINGLE\"}".into(),
        });
        check_profile(&AvailabilityZoneProfileRow {
            id: "i".into(),
            name: String::new(),
            provider_name: "amphora".into(),
            availability_zone_data: "{}".into(),
        });
    }
}
