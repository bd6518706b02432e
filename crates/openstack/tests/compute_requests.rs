//! The requests `NovaClient`, `GlanceClient` and `CinderClient` send and how answers become
//! `ServiceError`s, against a scripted local responder standing in for each service (tokens
//! come from the stack's real Keystone): paths, the Nova microversion, Glance's query, the
//! one re-auth on 401, 404 / 5xx / other statuses.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use openstack::{CinderClient, GlanceClient, NovaClient, ServiceEndpoint, ServiceError};

const UNAUTH: &str = r#"{"error": {"code": 401, "title": "Unauthorized", "message": "The request you have made requires authentication."}}"#;
const FLAVOR: &str =
    r#"{"flavor": {"id": "f/1", "name": "amp", "vcpus": 1, "ram": 1024, "disk": 2}}"#;
const ZONES: &str = r#"{"availabilityZoneInfo": [{"zoneName": "nova", "zoneState": {"available": true}, "hosts": null}, {"zoneName": "down-az", "zoneState": {"available": false}, "hosts": null}]}"#;
const IMAGES: &str = r#"{"images": [{"id": "new", "status": "active", "owner": "p1", "tags": ["amphora"]}, {"id": "old", "status": "active", "owner": "p1", "tags": ["amphora"]}], "first": "/v2/images"}"#;

fn at(url: String) -> ServiceEndpoint {
    ServiceEndpoint {
        endpoint: Some(url),
        ..ServiceEndpoint::default()
    }
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

#[tokio::test]
async fn nova_flavor_after_one_reauth_with_the_microversion() {
    let (url, seen) =
        common::scripted_server(vec![("401 Unauthorized", UNAUTH), ("200 OK", FLAVOR)]).await;
    let nova = NovaClient::new(
        common::http(),
        common::service(common::http()),
        at(format!("{url}/v2.1")),
    );
    assert_eq!(nova.flavor("f/1").await.unwrap().ram, 1024);
    let heads = seen.await.unwrap();
    assert_eq!(heads.len(), 2);
    assert!(
        heads[1].starts_with("GET /v2.1/flavors/f%2F1 "),
        "{}",
        heads[1]
    );
    assert_eq!(
        header(&heads[1], "x-openstack-nova-api-version"),
        Some("2.15")
    );
    assert_ne!(
        header(&heads[0], "x-auth-token"),
        header(&heads[1], "x-auth-token"),
        "a new service token on the retry"
    );
}

#[tokio::test]
async fn nova_answers_become_typed_errors() {
    let (url, _seen) = common::scripted_server(vec![
        (
            "404 Not Found",
            r#"{"itemNotFound": {"code": 404, "message": "Flavor x could not be found."}}"#,
        ),
        ("503 Service Unavailable", "{}"),
        (
            "403 Forbidden",
            r#"{"forbidden": {"code": 403, "message": "Policy doesn't allow it."}}"#,
        ),
        ("200 OK", ZONES),
    ])
    .await;
    let nova = NovaClient::new(common::http(), common::service(common::http()), at(url));
    let e = nova.flavor("x").await.unwrap_err();
    assert!(e.is_not_found() && !e.is_unavailable(), "{e}");
    let e = nova.flavor("x").await.unwrap_err();
    assert!(e.is_unavailable(), "{e}");
    match nova.flavor("x").await.unwrap_err() {
        ServiceError::Status {
            service: "nova",
            status: 403,
            message,
        } => assert!(message.contains("Policy"), "{message}"),
        other => panic!("{other:?}"),
    }
    let zones = nova.availability_zones().await.unwrap();
    let names: Vec<&str> = zones.iter().map(|z| z.zone_name.as_str()).collect();
    assert_eq!(names, ["nova", "down-az"], "every zone, available or not");
}

#[tokio::test]
async fn glance_query_and_newest_image() {
    let (url, seen) = common::scripted_server(vec![("200 OK", IMAGES)]).await;
    // a configured endpoint with a version: stripped, `/v2/images` added (glanceclient)
    let glance = GlanceClient::new(
        common::http(),
        common::service(common::http()),
        at(format!("{url}/v2/")),
    );
    assert_eq!(
        glance.image_id_by_tag("amphora", Some("p1")).await.unwrap(),
        Some("new".into())
    );
    let heads = seen.await.unwrap();
    assert!(
        heads[0].starts_with(
            "GET /v2/images?tag=amphora&status=active&owner=p1&sort=created_at%3Adesc&limit=2 "
        ),
        "{}",
        heads[0]
    );
}

#[tokio::test]
async fn cinder_zones_and_no_endpoint() {
    let (url, seen) = common::scripted_server(vec![("200 OK", ZONES)]).await;
    let cinder = CinderClient::new(
        common::http(),
        common::service(common::http()),
        at(format!("{url}/v3/p1")),
    );
    assert_eq!(cinder.availability_zones().await.unwrap().len(), 2);
    assert!(seen.await.unwrap()[0].starts_with("GET /v3/p1/os-availability-zone "));
    // no such service name in the catalog: NoEndpoint, not unavailable
    let cinder = CinderClient::new(
        common::http(),
        common::service(common::http()),
        ServiceEndpoint {
            service_name: Some("no-such-cinder".into()),
            ..ServiceEndpoint::default()
        },
    );
    let e = cinder.endpoint().await.unwrap_err();
    assert!(
        matches!(
            e,
            ServiceError::NoEndpoint {
                service: "cinder",
                ..
            }
        ) && !e.is_unavailable(),
        "{e}"
    );
}
