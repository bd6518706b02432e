#!/usr/bin/env python3
"""Writes the fixtures the crate's unit tests compare with, from the real oslo.messaging.

Run with the stack's venv (oslo.messaging 18.2.0, kombu 5.6.2, oslo.config 10.7.0):

    /var/tmp/keel-stack/venv/bin/python crates/oslo-messaging/tests/data/gen_fixtures.py

It writes, next to itself:
  envelopes.json   cast bodies: oslo's RPCClient._make_message, _add_unique_id (then pinned),
                   pack_context({}), serialize_msg, then kombu's JSON serializer -> the bytes
  rabbit_opts.json every option of [oslo_messaging_rabbit] with type, default and bounds
  urls.json        TransportURL.parse results and the kombu URL the rabbit driver builds
"""

import json
import os
import sys

from oslo_config import cfg

import kombu.serialization
import oslo_messaging as messaging
from oslo_messaging._drivers import amqp as rpc_amqp
from oslo_messaging._drivers import common as rpc_common
from oslo_messaging._drivers import impl_rabbit

HERE = os.path.dirname(os.path.abspath(__file__))


def sort_keys(v):
    # serde_json::Map (no preserve_order) iterates in key order: give oslo the same order.
    if isinstance(v, dict):
        return {k: sort_keys(v[k]) for k in sorted(v)}
    if isinstance(v, list):
        return [sort_keys(x) for x in v]
    return v


CASES = [
    ("octavia_create_lb", dict(exchange="octavia", topic="octavia_provisioning_v2",
                               namespace="controller", version="2.0", server=None),
     "create_load_balancer",
     {"loadbalancer_id": "0f4bd1b8-5d5f-4a4e-9a2c-1f1b0e7b3c55", "flavor": {"loadbalancer_topology": "SINGLE"},
      "availability_zone": None}),
    ("no_namespace_no_version", dict(exchange="octavia", topic="t", namespace=None,
                                     version=None, server=None),
     "m", {}),
    ("server_and_types", dict(exchange="octavia", topic="octavia_provisioning_v2",
                              namespace="controller", version="2.0", server="worker-1"),
     "update_member",
     {"member": {"weight": 10, "enabled": True, "backup": False, "monitor_port": None,
                 "ratio": 0.5, "big": 12345678901234567, "neg": -3, "tiny": 1.5e-07,
                 "huge": 1e+16, "whole": 3.0, "list": [1, "two", [], {}]},
      "original_member": {"name": "caf\u00e9 \u2603 \U0001F600 \"q\" \\ \n\t\x01\x7f /"}}),
    ("unicode_method", dict(exchange="x", topic="t", namespace="ns\u00e9", version="1.3",
                            server=None),
     "m\u00e9thod", {"k\u00e9y": "v"}),
]


def envelopes():
    conf = cfg.ConfigOpts()
    conf([])
    transport = messaging.get_rpc_transport(conf, url="fake:")
    out = []
    for i, (name, t, method, args) in enumerate(CASES):
        target = messaging.Target(**t)
        client = messaging.get_rpc_client(transport, target)
        args = sort_keys(args)
        msg = client._make_message({}, method, args)
        rpc_amqp._add_unique_id(msg)
        unique_id = "%032x" % (0x0123456789abcdef0123456789abcd00 + i)
        msg[rpc_amqp.UNIQUE_ID] = unique_id
        rpc_amqp.pack_context(msg, {})
        envelope = rpc_common.serialize_msg(msg)
        content_type, content_encoding, body = kombu.serialization.dumps(envelope, serializer="json")
        if isinstance(body, str):
            body = body.encode(content_encoding)
        out.append({
            "name": name,
            "target": t,
            "method": method,
            "args": args,
            "unique_id": unique_id,
            "content_type": content_type,
            "content_encoding": content_encoding,
            "body": body.decode("ascii"),
        })
    return out


def rabbit_opts():
    out = []
    for o in impl_rabbit.rabbit_opts + rpc_amqp.amqp_opts:
        env = o.name in ("hostname", "processname")
        out.append({
            "name": o.name,
            "type": type(o).__name__,
            "default": None if env else o.default,
            "environment_default": env,
            "min": getattr(o.type, "min", None),
            "max": getattr(o.type, "max", None),
            "choices": list(getattr(o.type, "choices", None) or []) or None,
            "deprecated_for_removal": o.deprecated_for_removal,
            "deprecated_names": [d.name for d in o.deprecated_opts],
        })
    return out


URLS = [
    "rabbit://",
    "rabbit:///",
    "rabbit://localhost",
    "rabbit://guest:guest@127.0.0.1:5672/",
    "rabbit://octavia:pa%40ss%3Aw%2Frd@10.0.0.1:5673/openstack",
    "rabbit://u1:p1@h1:5672,u2:p2@h2:5673/vh",
    "rabbit://u1:p1@h1,h2:5673,h3/",
    "rabbit://user@h1/",
    "rabbit://:p@h1/",
    "rabbit://u:@h1/",
    "rabbit://a@b:c@h1:1/",
    "rabbit://[::1]:5672,[fd00::2]/",
    "rabbit://[::1]/",
    "rabbit://::1/",
    "rabbit://h:0/",
    "rabbit://h1//",
    "rabbit://h1/%2F",
    "rabbit://h1/%252F",
    "rabbit://h1/vh?ssl=1&heartbeat_timeout_threshold=10&ssl=0&empty=",
    "rabbit://h1/?a+b=c+d",
    "kombu://u:p@h/",
    "RABBIT://h/",
    "rabbit://h1,,h2/",
]


def urls():
    conf = cfg.ConfigOpts()
    out = []
    for u in URLS:
        url = messaging.TransportURL.parse(conf, u)
        hosts = [{"hostname": h.hostname, "port": h.port, "username": h.username,
                  "password": h.password} for h in url.hosts]
        # The kombu URLs oslo's Connection builds (before its random.shuffle of the hosts).
        c = impl_rabbit.Connection.__new__(impl_rabbit.Connection)
        if url.hosts:
            kombu_urls = [c._transform_transport_url(url, h) for h in url.hosts]
        else:
            kombu_urls = [c._transform_transport_url(
                url, messaging.transport.TransportHost(''), default_username='guest',
                default_password='guest', default_hostname='localhost')]
        # What kombu then connects with (its pyamqp defaults applied).
        endpoints = []
        for k in kombu_urls:
            try:
                conn = kombu.Connection(k)
                info = conn.info()
            except (ValueError, KeyError) as e:
                # a "/" in a password (oslo quotes with safe="/"), or kombu:// (no such
                # kombu transport)
                endpoints.append({"kombu_error": str(e)})
                continue
            host = info["hostname"]
            endpoints.append({
                "host": host,
                "port": info["port"] or 5672,
                "username": info["userid"] or "guest",
                "password": info["password"] or "guest",
                "vhost": info["virtual_host"],
            })
        out.append({"url": u, "transport": url.transport, "virtual_host": url.virtual_host,
                    "hosts": hosts, "query": url.query, "kombu_urls": kombu_urls,
                    "endpoints": endpoints})
    return out


def main():
    for name, data in (("envelopes.json", envelopes()), ("rabbit_opts.json", rabbit_opts()),
                       ("urls.json", urls())):
        with open(os.path.join(HERE, name), "w") as f:
            json.dump(data, f, indent=1, ensure_ascii=True)
            f.write("\n")
    print("fixtures written to", HERE, file=sys.stderr)


if __name__ == "__main__":
    main()
