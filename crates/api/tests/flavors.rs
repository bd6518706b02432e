//! Providers, flavor profiles, flavors, AZ profiles, AZs and amphorae in-process against a
//! real octavia-db (SQLite and MariaDB), with keystone-style tokens for the admin-only rules.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use axum::http::StatusCode;
use serde_json::json;

const NIL: &str = "00000000-0000-0000-0000-000000000000";
const FORBIDDEN: &str = "Policy does not allow this request to be performed.";

#[tokio::test]
async fn providers_and_capabilities() {
    each_backend!(common::Setup::named_tokens(), |env| {
        let (s, b) = env.req("GET", "/v2/lbaas/providers", None).await;
        assert_eq!(s, StatusCode::OK);
        // `amphora` is enabled but not loaded: left out
        assert_eq!(
            b,
            json!({"providers": [{"name": "full", "description": "Full fake driver."}, {"name": "ovn", "description": "Octavia OVN driver."}]})
        );
        let (_, b) = env
            .req("GET", "/v2/lbaas/providers?fields=name", None)
            .await;
        assert_eq!(b["providers"][1], json!({"name": "ovn"}));
        let (s, b) = env
            .req("GET", "/v2/lbaas/providers/full/flavor_capabilities", None)
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        assert_eq!(b["faultstring"], FORBIDDEN);
        let (s, b) = env
            .req_as(
                Some("admin"),
                "GET",
                "/v2/lbaas/providers/full/flavor_capabilities?name=compute_flavor",
                None,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(
            b,
            json!({"flavor_capabilities": [{"name": "compute_flavor", "description": "The compute driver flavor ID."}]})
        );
        let (s, b) = env
            .req_as(
                Some("admin"),
                "GET",
                "/v2/lbaas/providers/full/availability_zone_capabilities",
                None,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(
            b["availability_zone_capabilities"][0]["name"],
            "compute_zone"
        );
        for cap in ["flavor_capabilities", "availability_zone_capabilities"] {
            let (s, b) = env
                .req_as(
                    Some("admin"),
                    "GET",
                    &format!("/v2/lbaas/providers/ovn/{cap}"),
                    None,
                )
                .await;
            assert_eq!(s, StatusCode::NOT_IMPLEMENTED);
            assert!(
                b["faultstring"]
                    .as_str()
                    .unwrap()
                    .starts_with("Provider 'ovn' does not support a requested action: "),
                "{b}"
            );
        }
        let (s, b) = env
            .req_as(
                Some("admin"),
                "GET",
                "/v2/lbaas/providers/nope/flavor_capabilities",
                None,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(b["faultstring"], "Provider 'nope' is not enabled.");
        let (s, b) = env
            .req_as(
                Some("admin"),
                "GET",
                "/v2/lbaas/providers/amphora/flavor_capabilities",
                None,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_IMPLEMENTED);
        assert_eq!(b["faultstring"], "Provider 'amphora' was not found.");
    });
}

#[tokio::test]
async fn flavor_profiles_and_flavors() {
    each_backend!(common::Setup::named_tokens(), |env| {
        let fp = Some(
            json!({"flavorprofile": {"name": "fp", "provider_name": "full", "flavor_data": "{\"loadbalancer_topology\": \"SINGLE\"}"}}),
        );
        let (s, b) = env
            .req("POST", "/v2/lbaas/flavorprofiles", fp.clone())
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        assert_eq!(b["faultstring"], FORBIDDEN);
        let (s, b) = env.req_as(Some("admin"), "POST", "/v2/lbaas/flavorprofiles", Some(json!({"flavorprofile": {"name": "x", "provider_name": "full", "flavor_data": "{nope"}}))).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "{nope is not a valid option for flavor_data"
        );
        let (s, b) = env.req_as(Some("admin"), "POST", "/v2/lbaas/flavorprofiles", Some(json!({"flavorprofile": {"name": "x", "provider_name": "full", "flavor_data": "{\"bogus\": 1}"}}))).await;
        assert_eq!(s, StatusCode::NOT_IMPLEMENTED);
        assert_eq!(
            b["faultstring"],
            "Provider 'full' does not support a requested option: Unknown flavor metadata key."
        );
        let (s, b) = env.req_as(Some("admin"), "POST", "/v2/lbaas/flavorprofiles", Some(json!({"flavorprofile": {"name": "x", "provider_name": "ovn", "flavor_data": "{}"}}))).await;
        assert_eq!(s, StatusCode::NOT_IMPLEMENTED, "{b}");
        let (s, b) = env
            .req_as(Some("admin"), "POST", "/v2/lbaas/flavorprofiles", fp)
            .await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        let fpid = b["flavorprofile"]["id"].as_str().unwrap().to_string();
        assert_eq!(
            b["flavorprofile"]["flavor_data"],
            "{\"loadbalancer_topology\": \"SINGLE\"}"
        );
        assert_eq!(
            env.provider("full").last("validate_flavor").unwrap(),
            json!({"loadbalancer_topology": "SINGLE"})
        );
        let (s, b) = env
            .req_as(Some("admin"), "GET", "/v2/lbaas/flavorprofiles", None)
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(
            b["flavorprofiles"].as_array().unwrap().len(),
            1,
            "placeholder hidden: {b}"
        );
        assert_eq!(b["flavorprofile_links"], json!([]));
        let (s, b) = env
            .req_as(
                Some("admin"),
                "GET",
                &format!("/v2/lbaas/flavorprofiles/{NIL}"),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(b["faultstring"], format!("Flavor profile {NIL} not found."));
        let (s, b) = env
            .req_as(
                Some("admin"),
                "PUT",
                &format!("/v2/lbaas/flavorprofiles/{fpid}"),
                Some(json!({"flavorprofile": {"name": null}})),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(b["faultstring"], "None is not a valid option for name");

        // flavors
        let fl = Some(
            json!({"flavor": {"name": "small", "flavor_profile_id": fpid, "description": "d"}}),
        );
        let (s, _) = env.req("POST", "/v2/lbaas/flavors", fl.clone()).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, b) = env
            .req_as(Some("admin"), "POST", "/v2/lbaas/flavors", fl.clone())
            .await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        assert_eq!(b["flavor"]["enabled"], true);
        let mut keys: Vec<&str> = b["flavor"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort();
        assert_eq!(
            keys,
            vec!["description", "enabled", "flavor_profile_id", "id", "name"]
        );
        let flid = b["flavor"]["id"].as_str().unwrap().to_string();
        let (s, b) = env
            .req_as(Some("admin"), "POST", "/v2/lbaas/flavors", fl)
            .await;
        assert_eq!(s, StatusCode::CONFLICT);
        assert_eq!(b["faultstring"], "A flavor of small already exists.");
        // members read flavors
        let (s, b) = env.req("GET", "/v2/lbaas/flavors", None).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(b["flavors"].as_array().unwrap().len(), 1);
        assert_eq!(b["flavors_links"], json!([]));
        let (s, b) = env
            .req("GET", &format!("/v2/lbaas/flavors/{NIL}"), None)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(b["faultstring"], format!("Flavor {NIL} not found."));
        let (s, b) = env
            .req_as(
                Some("admin"),
                "PUT",
                &format!("/v2/lbaas/flavors/{flid}"),
                Some(json!({"flavor": {"flavor_profile_id": fpid}})),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "Unknown attribute for argument flavor_.flavor: flavor_profile_id"
        );
        let (s, b) = env
            .req_as(
                Some("admin"),
                "PUT",
                &format!("/v2/lbaas/flavors/{flid}"),
                Some(json!({"flavor": {"enabled": false}})),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(b["flavor"]["enabled"], false);

        // profile in use
        let (s, b) = env
            .req_as(
                Some("admin"),
                "PUT",
                &format!("/v2/lbaas/flavorprofiles/{fpid}"),
                Some(json!({"flavorprofile": {"flavor_data": "{}"}})),
            )
            .await;
        assert_eq!(s, StatusCode::CONFLICT);
        assert_eq!(
            b["faultstring"],
            format!("Flavor profile {fpid} is in use and cannot be modified.")
        );
        let (s, _) = env
            .req_as(
                Some("admin"),
                "DELETE",
                &format!("/v2/lbaas/flavorprofiles/{fpid}"),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::CONFLICT);
        // flavor in use by a live LB; a DELETED one is re-pointed
        let lb = uuid::Uuid::new_v4().to_string();
        env.sql("INSERT INTO `load_balancer` (`id`, `project_id`, `provisioning_status`, `operating_status`, `enabled`, `flavor_id`) VALUES (?, ?, 'ACTIVE', 'ONLINE', 1, ?)",
            vec![lb.clone().into(), common::PROJECT.into(), flid.clone().into()]).await;
        let (s, b) = env
            .req_as(
                Some("admin"),
                "DELETE",
                &format!("/v2/lbaas/flavors/{flid}"),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::CONFLICT);
        assert_eq!(
            b["faultstring"],
            format!("Flavor {flid} is in use and cannot be modified.")
        );
        env.set_status("load_balancer", &lb, "DELETED").await;
        let (s, _) = env
            .req_as(
                Some("admin"),
                "DELETE",
                &format!("/v2/lbaas/flavors/{flid}"),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::NO_CONTENT);
        let (s, _) = env
            .req_as(
                Some("admin"),
                "DELETE",
                &format!("/v2/lbaas/flavorprofiles/{fpid}"),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::NO_CONTENT);
        let (s, b) = env
            .req_as(
                Some("admin"),
                "DELETE",
                &format!("/v2/lbaas/flavorprofiles/{fpid}"),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(
            b["faultstring"],
            format!("Flavor profile {fpid} not found.")
        );
    });
}

#[tokio::test]
async fn availability_zones_and_profiles() {
    each_backend!(common::Setup::named_tokens(), |env| {
        let (s, b) = env.req_as(Some("admin"), "POST", "/v2/lbaas/availabilityzoneprofiles", Some(json!({"availability_zone_profile": {"name": "azp", "provider_name": "full", "availability_zone_data": "{\"compute_zone\": \"nova\"}"}}))).await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        let pid = b["availability_zone_profile"]["id"]
            .as_str()
            .unwrap()
            .to_string();
        let (s, _) = env
            .req("GET", "/v2/lbaas/availabilityzoneprofiles", None)
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (_, b) = env
            .req_as(
                Some("admin"),
                "GET",
                "/v2/lbaas/availabilityzoneprofiles",
                None,
            )
            .await;
        assert_eq!(b["availability_zone_profiles"].as_array().unwrap().len(), 1);
        assert_eq!(b["availability_zone_profile_links"], json!([]));
        let az = Some(
            json!({"availability_zone": {"name": "az1", "availability_zone_profile_id": pid}}),
        );
        let (s, _) = env
            .req("POST", "/v2/lbaas/availabilityzones", az.clone())
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, b) = env
            .req_as(
                Some("admin"),
                "POST",
                "/v2/lbaas/availabilityzones",
                az.clone(),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        assert_eq!(
            b,
            json!({"availability_zone": {"name": "az1", "description": "", "enabled": true, "availability_zone_profile_id": pid}})
        );
        let (s, b) = env
            .req_as(Some("admin"), "POST", "/v2/lbaas/availabilityzones", az)
            .await;
        assert_eq!(s, StatusCode::CONFLICT);
        assert_eq!(
            b["faultstring"],
            "A availability zone of az1 already exists."
        );
        let (s, b) = env.req("GET", "/v2/lbaas/availabilityzones", None).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(b["availability_zones"].as_array().unwrap().len(), 1);
        let (s, b) = env
            .req_as(
                Some("admin"),
                "PUT",
                "/v2/lbaas/availabilityzones/az1",
                Some(json!({"availability_zone": {"description": "first"}})),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(b["availability_zone"]["description"], "first");
        let (s, b) = env
            .req("GET", &format!("/v2/lbaas/availabilityzones/{NIL}"), None)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(
            b["faultstring"],
            format!("Availability Zone {NIL} not found.")
        );
        let (s, b) = env
            .req_as(
                Some("admin"),
                "DELETE",
                &format!("/v2/lbaas/availabilityzoneprofiles/{pid}"),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::CONFLICT);
        assert_eq!(
            b["faultstring"],
            format!("Availability Zone Profile {pid} is in use and cannot be modified.")
        );
        let lb = uuid::Uuid::new_v4().to_string();
        env.sql("INSERT INTO `load_balancer` (`id`, `project_id`, `provisioning_status`, `operating_status`, `enabled`, `availability_zone`) VALUES (?, ?, 'ACTIVE', 'ONLINE', 1, 'az1')",
            vec![lb.clone().into(), common::PROJECT.into()]).await;
        let (s, b) = env
            .req_as(
                Some("admin"),
                "DELETE",
                "/v2/lbaas/availabilityzones/az1",
                None,
            )
            .await;
        assert_eq!(s, StatusCode::CONFLICT);
        assert_eq!(
            b["faultstring"],
            "Availability Zone az1 is in use and cannot be modified."
        );
        env.set_status("load_balancer", &lb, "DELETED").await;
        let (s, _) = env
            .req_as(
                Some("admin"),
                "DELETE",
                "/v2/lbaas/availabilityzones/az1",
                None,
            )
            .await;
        assert_eq!(s, StatusCode::NO_CONTENT);
        let (s, _) = env
            .req_as(
                Some("admin"),
                "DELETE",
                &format!("/v2/lbaas/availabilityzoneprofiles/{pid}"),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::NO_CONTENT);
    });
}

#[tokio::test]
async fn amphorae_are_admin_only_and_absent() {
    each_backend!(common::Setup::named_tokens(), |env| {
        let (s, _) = env.req("GET", "/v2/octavia/amphorae", None).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, b) = env
            .req_as(Some("admin"), "GET", "/v2/octavia/amphorae", None)
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(b, json!({"amphorae": [], "amphorae_links": []}));
        let id = "6a0a707c-45ef-4758-b533-e55adddba8cf";
        let (s, b) = env
            .req_as(
                Some("admin"),
                "GET",
                &format!("/v2/octavia/amphorae/{id}"),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(b["faultstring"], format!("Amphora {id} not found."));
        for what in ["failover", "config"] {
            let (s, b) = env
                .req_as(
                    Some("admin"),
                    "PUT",
                    &format!("/v2/octavia/amphorae/{id}/{what}"),
                    None,
                )
                .await;
            assert_eq!(s, StatusCode::NOT_FOUND);
            assert_eq!(b["faultstring"], format!("Amphora {id} not found."));
        }
        let (s, _) = env
            .req("GET", &format!("/v2/octavia/amphorae/{id}/stats"), None)
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, b) = env
            .req_as(
                Some("admin"),
                "GET",
                &format!("/v2/octavia/amphorae/{id}/stats"),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(
            b["faultstring"],
            format!("Amphora stats for {id} not found.")
        );
        let (s, _) = env
            .req("DELETE", &format!("/v2/octavia/amphorae/{id}"), None)
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
    });
}

#[tokio::test]
async fn lb_create_resolves_flavor_and_zone_metadata() {
    each_backend!(common::Setup::named_tokens(), |env| {
        let (_, b) = env.req_as(Some("admin"), "POST", "/v2/lbaas/flavorprofiles", Some(json!({"flavorprofile": {"name": "fp", "provider_name": "full", "flavor_data": "{\"compute_flavor\": \"m1\"}"}}))).await;
        let fpid = b["flavorprofile"]["id"].as_str().unwrap().to_string();
        let (_, b) = env
            .req_as(
                Some("admin"),
                "POST",
                "/v2/lbaas/flavors",
                Some(json!({"flavor": {"name": "f", "flavor_profile_id": fpid}})),
            )
            .await;
        let flid = b["flavor"]["id"].as_str().unwrap().to_string();
        let (_, b) = env.req_as(Some("admin"), "POST", "/v2/lbaas/availabilityzoneprofiles", Some(json!({"availability_zone_profile": {"name": "p", "provider_name": "full", "availability_zone_data": "{\"compute_zone\": \"z1\"}"}}))).await;
        let azp = b["availability_zone_profile"]["id"]
            .as_str()
            .unwrap()
            .to_string();
        let (s, _) = env.req_as(Some("admin"), "POST", "/v2/lbaas/availabilityzones", Some(json!({"availability_zone": {"name": "az1", "availability_zone_profile_id": azp}}))).await;
        assert_eq!(s, StatusCode::CREATED);

        let (s, b) = env.req("POST", "/v2/lbaas/loadbalancers", Some(json!({"loadbalancer": {"vip_subnet_id": common::SUBNET, "flavor_id": flid, "availability_zone": "az1"}}))).await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        assert_eq!(b["loadbalancer"]["provider"], "full");
        assert_eq!(b["loadbalancer"]["flavor_id"], flid);
        assert_eq!(b["loadbalancer"]["availability_zone"], "az1");
        let sent = env.provider("full").last("loadbalancer_create").unwrap();
        assert_eq!(sent["flavor"], json!({"compute_flavor": "m1"}));
        assert_eq!(sent["availability_zone"], json!({"compute_zone": "z1"}));

        let (s, b) = env.req("POST", "/v2/lbaas/loadbalancers", Some(json!({"loadbalancer": {"vip_subnet_id": common::SUBNET, "flavor_id": flid, "provider": "ovn"}}))).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            format!("Flavor '{flid}' is not compatible with provider 'ovn'")
        );
        let (s, b) = env.req("POST", "/v2/lbaas/loadbalancers", Some(json!({"loadbalancer": {"vip_subnet_id": common::SUBNET, "availability_zone": "nowhere"}}))).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            "Validation failure: Invalid availability zone."
        );
        env.req_as(
            Some("admin"),
            "PUT",
            &format!("/v2/lbaas/flavors/{flid}"),
            Some(json!({"flavor": {"enabled": false}})),
        )
        .await;
        let (s, b) = env
            .req(
                "POST",
                "/v2/lbaas/loadbalancers",
                Some(json!({"loadbalancer": {"vip_subnet_id": common::SUBNET, "flavor_id": flid}})),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            b["faultstring"],
            format!("The selected flavor is not allowed in this deployment: {flid}")
        );
    });
}
