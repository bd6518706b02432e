//! `NovaClient`, `GlanceClient`, `CinderClient` against the Nova, Glance and Cinder of
//! `STACK_COMPUTE=1` (`#[ignore]`d otherwise: run with `--run-ignored all` after
//! `source ci/stack/env.sh admin`), with Keel's service session: endpoints from the catalog
//! and from a configured URL, a flavor, the zones, the amphora image by tag and owner.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{env, http, service, unique};
use openstack::{CinderClient, GlanceClient, NovaClient, ServiceEndpoint};

#[tokio::test]
#[ignore = "needs the Nova of STACK_COMPUTE=1"]
async fn nova_flavor_and_zones_from_the_catalog_and_an_override() {
    let nova = NovaClient::new(http(), service(http()), ServiceEndpoint::default());
    let url = nova.endpoint().await.unwrap().to_string();
    let id = env("STACK_NOVA_FLAVOR_ID");
    assert_eq!(nova.flavor(&id).await.unwrap().id, id);
    let e = nova.flavor(&unique("no-such-flavor")).await.unwrap_err();
    assert!(e.is_not_found(), "{e}");
    let zones = nova.availability_zones().await.unwrap();
    assert!(
        zones.iter().any(|z| z.zone_name == env("STACK_NOVA_AZ")),
        "{zones:?}"
    );
    // `[nova] endpoint`: no catalog lookup, same answers
    let fixed = NovaClient::new(
        http(),
        service(http()),
        ServiceEndpoint {
            endpoint: Some(env("STACK_NOVA_URL")),
            ..ServiceEndpoint::default()
        },
    );
    assert_eq!(fixed.endpoint().await.unwrap(), env("STACK_NOVA_URL"));
    assert_eq!(fixed.flavor(&id).await.unwrap().id, id, "catalog had {url}");
}

#[tokio::test]
#[ignore = "needs the Glance of STACK_COMPUTE=1"]
async fn glance_newest_active_image_by_tag_and_owner() {
    let glance = GlanceClient::new(http(), service(http()), ServiceEndpoint::default());
    let tag = env("STACK_GLANCE_AMP_TAG");
    let want = env("STACK_GLANCE_AMP_IMAGE_ID");
    assert_eq!(
        glance.image_id_by_tag(&tag, None).await.unwrap(),
        Some(want.clone())
    );
    let images = glance.active_images_by_tag(&tag, None).await.unwrap();
    let owner = images[0].owner.clone();
    assert_eq!(
        glance.image_id_by_tag(&tag, Some(&owner)).await.unwrap(),
        Some(want)
    );
    assert_eq!(
        glance
            .image_id_by_tag(&tag, Some("0123456789abcdef0123456789abcdef"))
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        glance
            .image_id_by_tag(&unique("no-such-tag"), None)
            .await
            .unwrap(),
        None
    );
    // `[glance] endpoint` with a version suffix: stripped, as glanceclient
    let fixed = GlanceClient::new(
        http(),
        service(http()),
        ServiceEndpoint {
            endpoint: Some(format!(
                "{}/v2",
                env("STACK_GLANCE_URL").trim_end_matches('/')
            )),
            ..ServiceEndpoint::default()
        },
    );
    assert!(fixed.image_id_by_tag(&tag, None).await.unwrap().is_some());
}

#[tokio::test]
#[ignore = "needs the Cinder of STACK_COMPUTE=1"]
async fn cinder_zones() {
    let cinder = CinderClient::new(http(), service(http()), ServiceEndpoint::default());
    let zones = cinder.availability_zones().await.unwrap();
    assert!(
        zones.iter().any(|z| z.zone_name == env("STACK_CINDER_AZ")),
        "{zones:?}"
    );
}
