//! NeutronClient against the stack's Neutron (STACK_NEUTRON_URL, found through the catalog).
//! Every test creates its own network and deletes what it made through `common::Cleanup`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::net::IpAddr;

use common::Cleanup;
use openstack::{
    FixedIpRequest, ListFilter, NetworkCreate, NeutronClient, NeutronConfig, NeutronError,
    PortCreate, PortUpdate, RouterCreate, SubnetCreate,
};

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// A network + IPv4 subnet owned by `client`'s project, registered for cleanup.
async fn network_with_subnet(
    client: &NeutronClient,
    cleanup: &mut Cleanup,
    cidr: &str,
) -> (openstack::Network, openstack::Subnet) {
    let net = client
        .create_network(&NetworkCreate {
            name: Some(common::unique("keel-os-test")),
            ..NetworkCreate::default()
        })
        .await
        .unwrap();
    cleanup.networks.push(net.id.clone());
    let subnet = client
        .create_subnet(&SubnetCreate {
            network_id: net.id.clone(),
            cidr: cidr.into(),
            ip_version: 4,
            name: Some(common::unique("keel-os-test")),
            ..SubnetCreate::default()
        })
        .await
        .unwrap();
    cleanup.subnets.push(subnet.id.clone());
    (net, subnet)
}

#[tokio::test]
async fn port_lifecycle_as_demo_user() {
    let http = common::http();
    let (token, demo_project) = common::demo_token(http.clone()).await;
    let demo = common::neutron(http.clone()).with_user_token(token);
    let mut cleanup = Cleanup::default();
    let (net, subnet) = network_with_subnet(&demo, &mut cleanup, "10.77.0.0/24").await;
    assert_eq!(net.project_id, demo_project);
    assert_eq!(subnet.network_id, net.id);
    assert_eq!(subnet.cidr, "10.77.0.0/24");
    assert_eq!(subnet.ip_version, 4);
    assert_eq!(subnet.gateway_ip, Some(ip("10.77.0.1")));
    assert_eq!(subnet.project_id, demo_project);

    let got = demo.get_subnet(&subnet.id).await.unwrap();
    assert_eq!(got, subnet);
    let got = demo.get_network(&net.id).await.unwrap();
    assert_eq!(got.subnets, vec![subnet.id.clone()]);

    let lb_id = common::unique("lb");
    let name = format!("ovn-lb-vip-{lb_id}");
    let port = demo
        .create_port(&PortCreate {
            network_id: net.id.clone(),
            name: Some(name.clone()),
            fixed_ips: Some(vec![FixedIpRequest::address(&subnet.id, ip("10.77.0.10"))]),
            device_owner: Some("ovn-lb:vip".into()),
            device_id: Some(format!("lb-{lb_id}")),
            admin_state_up: Some(false),
            ..PortCreate::default()
        })
        .await
        .unwrap();
    cleanup.ports.push(port.id.clone());
    assert_eq!(port.name, name);
    assert_eq!(port.network_id, net.id);
    assert_eq!(port.project_id, demo_project);
    assert_eq!(port.device_owner, "ovn-lb:vip");
    assert_eq!(port.device_id, format!("lb-{lb_id}"));
    assert!(!port.admin_state_up);
    assert_eq!(port.ip_in_subnet(&subnet.id), Some(ip("10.77.0.10")));
    assert_eq!(port.mac_address.len(), 17);
    assert_eq!(port.security_groups.len(), 1, "the project's default group");
    let sg = demo
        .get_security_group(&port.security_groups[0])
        .await
        .unwrap();
    assert_eq!(sg.name, "default");
    assert_eq!(sg.project_id, demo_project);

    let got = demo.get_port(&port.id).await.unwrap();
    assert_eq!(got.fixed_ips, port.fixed_ips);
    assert_eq!(got.mac_address, port.mac_address);

    // Lists by name, by subnet, by owner + network.
    let by_name = demo
        .list_ports(&ListFilter::new().eq("name", &name))
        .await
        .unwrap();
    assert_eq!(
        by_name.iter().map(|p| &p.id).collect::<Vec<_>>(),
        vec![&port.id]
    );
    let by_subnet = demo
        .list_ports(&ListFilter::new().fixed_ip_subnet(&subnet.id))
        .await
        .unwrap();
    assert!(by_subnet.iter().any(|p| p.id == port.id));
    assert!(
        by_subnet
            .iter()
            .all(|p| p.ip_in_subnet(&subnet.id).is_some())
    );
    let by_owner = demo
        .list_ports(
            &ListFilter::new()
                .eq("device_owner", "ovn-lb:vip")
                .eq("network_id", &net.id),
        )
        .await
        .unwrap();
    assert_eq!(by_owner.len(), 1);
    let by_ip = demo
        .list_ports(
            &ListFilter::new()
                .fixed_ip_address(ip("10.77.0.10"))
                .eq("network_id", &net.id),
        )
        .await
        .unwrap();
    assert_eq!(by_ip.len(), 1);

    // The same address again: 409 IpAddressAlreadyAllocated, typed Conflict.
    let dup = demo
        .create_port(&PortCreate {
            network_id: net.id.clone(),
            fixed_ips: Some(vec![FixedIpRequest::address(&subnet.id, ip("10.77.0.10"))]),
            ..PortCreate::default()
        })
        .await;
    match dup {
        Err(ref e @ NeutronError::Conflict(ref fault)) => {
            assert_eq!(fault.error_type, "IpAddressAlreadyAllocated", "{fault:?}");
            assert!(fault.message.contains("10.77.0.10"), "{fault:?}");
            assert_eq!(e.status(), Some(409));
        }
        Ok(p) => {
            cleanup.ports.push(p.id);
            panic!("duplicate IP accepted");
        }
        Err(e) => panic!("expected Conflict, got {e:?}"),
    }

    // An address outside the subnet: 400, typed BadRequest.
    let outside = demo
        .create_port(&PortCreate {
            network_id: net.id.clone(),
            fixed_ips: Some(vec![FixedIpRequest::address(&subnet.id, ip("192.0.2.9"))]),
            ..PortCreate::default()
        })
        .await;
    assert!(
        matches!(outside, Err(NeutronError::BadRequest(_))),
        "{outside:?}"
    );

    // Update.
    let updated = demo
        .update_port(
            &port.id,
            &PortUpdate {
                name: Some(format!("{name}-renamed")),
                admin_state_up: Some(true),
                ..PortUpdate::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(updated.name, format!("{name}-renamed"));
    assert!(updated.admin_state_up);
    assert_eq!(updated.fixed_ips, port.fixed_ips);

    // Delete: true, then the port is gone, then deleting again is Ok(false).
    assert!(demo.delete_port(&port.id).await.unwrap());
    assert!(demo.get_port(&port.id).await.unwrap_err().is_not_found());
    assert!(!demo.delete_port(&port.id).await.unwrap());
    assert!(matches!(
        demo.update_port(&port.id, &PortUpdate::default()).await,
        Err(NeutronError::NotFound(_))
    ));
}

#[tokio::test]
async fn visibility_follows_the_user_token() {
    let http = common::http();
    let (demo_token, _) = common::demo_token(http.clone()).await;
    let service = common::neutron(http.clone());
    let demo = service.with_user_token(demo_token);
    let mut cleanup = Cleanup::default();
    let (net, subnet) = network_with_subnet(&demo, &mut cleanup, "10.78.0.0/24").await;

    // demo2 (another project) cannot see demo's subnet: 404, as Octavia's validation sees it.
    let demo2_token = common::session(http.clone(), "demo2", "demo2-pass", "demo2")
        .token()
        .await
        .unwrap();
    let demo2 = service.with_user_token(demo2_token.id());
    let err = demo2.get_subnet(&subnet.id).await.unwrap_err();
    assert!(err.is_not_found(), "{err:?}");
    assert_eq!(err.fault().unwrap().error_type, "SubnetNotFound");
    assert!(demo2.get_network(&net.id).await.unwrap_err().is_not_found());
    // The service token sees it.
    assert_eq!(service.get_subnet(&subnet.id).await.unwrap().id, subnet.id);

    // A token Keystone does not know: 401, typed Unauthorized, no retry with a user token.
    match service
        .with_user_token("not-a-token")
        .get_subnet(&subnet.id)
        .await
    {
        Err(NeutronError::Unauthorized { status: 401, .. }) => {}
        other => panic!("expected Unauthorized, got {other:?}"),
    }
}

#[tokio::test]
async fn service_ports_routers_and_lookups() {
    let http = common::http();
    let (demo_token, demo_project) = common::demo_token(http.clone()).await;
    // Endpoint override instead of the catalog, as octavia.conf [neutron] endpoint_override.
    let service = NeutronClient::new(
        common::service(http.clone()),
        NeutronConfig {
            endpoint_override: Some(common::env("STACK_NEUTRON_URL")),
            ..NeutronConfig::default()
        },
    );
    let demo = service.with_user_token(demo_token);
    let mut cleanup = Cleanup::default();
    let (net, subnet) = network_with_subnet(&demo, &mut cleanup, "10.79.0.0/24").await;

    // The OVN provider's HM port: service token, in the member's project, no port security.
    let hm_name = format!("ovn-lb-hm-{}", subnet.id);
    let hm = service
        .create_port(&PortCreate {
            network_id: net.id.clone(),
            name: Some(hm_name.clone()),
            fixed_ips: Some(vec![FixedIpRequest::subnet(&subnet.id)]),
            admin_state_up: Some(true),
            port_security_enabled: Some(false),
            device_owner: Some("ovn-lb-hm:distributed".into()),
            device_id: Some(hm_name.clone()),
            project_id: Some(demo_project.clone()),
            ..PortCreate::default()
        })
        .await
        .unwrap();
    cleanup.ports.push(hm.id.clone());
    assert_eq!(hm.project_id, demo_project);
    assert_eq!(hm.port_security_enabled, Some(false));
    assert!(hm.security_groups.is_empty());
    let found = service
        .list_ports(&ListFilter::new().eq("name", &hm_name))
        .await
        .unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].id, hm.id);

    // A router with an interface on the subnet: found through the interface ports.
    let router = demo
        .create_router(&RouterCreate {
            name: Some(common::unique("keel-os-test")),
            ..RouterCreate::default()
        })
        .await
        .unwrap();
    cleanup.routers.push(router.id.clone());
    let iface_port = demo
        .add_router_interface(&router.id, &subnet.id)
        .await
        .unwrap();
    cleanup
        .router_interfaces
        .push((router.id.clone(), subnet.id.clone()));
    let ifaces = service.router_interface_ports(&subnet.id).await.unwrap();
    assert_eq!(ifaces.len(), 1, "{ifaces:?}");
    assert_eq!(ifaces[0].id, iface_port);
    assert_eq!(ifaces[0].device_id, router.id);
    assert_eq!(ifaces[0].ip_in_subnet(&subnet.id), Some(ip("10.79.0.1")));
    let routers = demo
        .list_routers(&ListFilter::new().eq("id", &router.id))
        .await
        .unwrap();
    assert_eq!(routers.len(), 1);
    assert_eq!(
        service.get_router(&router.id).await.unwrap().project_id,
        demo_project
    );

    // No floating IP on the HM port.
    assert!(
        service
            .floating_ips_by_port(&hm.id)
            .await
            .unwrap()
            .is_empty()
    );

    // IP availability of the network: a /24 has 253 allocatable addresses, 2 in use.
    let avail = service.network_ip_availability(&net.id).await.unwrap();
    let s = avail
        .subnet_ip_availability
        .iter()
        .find(|s| s.subnet_id == subnet.id)
        .unwrap();
    assert_eq!(s.total_ips, 253);
    assert_eq!(s.used_ips, 2, "router interface + HM port");

    // Lists follow pagination links: one port per page still returns all of them.
    let paged = service
        .list_ports(&ListFilter::new().eq("network_id", &net.id).eq("limit", "1"))
        .await
        .unwrap();
    let all = service
        .list_ports(&ListFilter::new().eq("network_id", &net.id))
        .await
        .unwrap();
    assert!(all.len() >= 2);
    let mut a: Vec<_> = paged.iter().map(|p| p.id.clone()).collect();
    let mut b: Vec<_> = all.iter().map(|p| p.id.clone()).collect();
    a.sort();
    b.sort();
    assert_eq!(a, b);

    // Validation lookups: a random id is NotFound; demo's default security group is found.
    let missing = "00000000-0000-4000-8000-000000000000";
    assert!(
        service
            .get_security_group(missing)
            .await
            .unwrap_err()
            .is_not_found()
    );
    assert!(
        demo.get_qos_policy(missing)
            .await
            .unwrap_err()
            .is_not_found()
    );
}
