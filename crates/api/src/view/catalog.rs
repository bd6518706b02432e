//! The unit tests of the operator catalog's response objects — flavors and availability zones
//! (`crate::flavors::FlavorView`, `AzView`) and their profiles
//! (`crate::profiles::FlavorProfileView`, `AzProfileView`), each declared by `view_decl!` beside
//! its handlers: their text equals the maps they replaced.

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::flavors::{AzView, FlavorView};
    use crate::profiles::{AzProfileView, FlavorProfileView, Profile};
    use crate::view::testing::same_as_map;
    use octavia_db::{
        AvailabilityZoneProfileRow, AvailabilityZoneRow, FlavorProfileRow, FlavorRow,
    };
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

    fn check_profile<P: Profile>(p: &P, view: &impl serde::Serialize) {
        let (id, name, provider, data) = p.parts();
        // `profiles::render` before the view
        let map = json!({"id": id, "name": name, "provider_name": provider, P::DATA: data});
        same_as_map(view, map);
    }

    #[test]
    fn profile_views_text_equals_the_maps_they_replaced() {
        let fp = FlavorProfileRow {
            id: "i\"d".into(),
            name: "n\u{e9}".into(),
            provider_name: "ovn".into(),
            flavor_data: "{\"loadbalancer_topology\": \"SINGLE\"}".into(),
        };
        check_profile(&fp, &FlavorProfileView::new(&fp));
        let azp = AvailabilityZoneProfileRow {
            id: "i".into(),
            name: String::new(),
            provider_name: "amphora".into(),
            availability_zone_data: "{}".into(),
        };
        check_profile(&azp, &AzProfileView::new(&azp));
    }
}
