//! The request's own URL as links show it, behind a TLS-terminating proxy or not.
//!
//! As oslo.middleware's `HTTPProxyToWSGI` (wrapped around every Octavia API request by
//! `octavia/api/app.py`), when `[oslo_middleware] enable_proxy_headers_parsing` is true: an
//! RFC 7239 `Forwarded` header, if present, gives the scheme (`proto=`), host (`host=`) and
//! client (`for=`) from its first element; otherwise `X-Forwarded-Proto`, `X-Forwarded-Host`
//! and `X-Forwarded-For` do. `X-Forwarded-Prefix` is put before the path in either case.
//! When the option is false every one of these headers is ignored (a client could otherwise
//! steer the links). The URL is then formed as webob's `Request.host_url` does: the default
//! port of the scheme (`:80` for http, `:443` for https) is dropped from the host.

use std::net::{IpAddr, SocketAddr};

use axum::extract::ConnectInfo;
use axum::http::{Extensions, HeaderMap};

/// Where the client addressed the request, after the proxy headers (see the module doc).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// `http`, `https` or whatever the proxy said (`wsgi.url_scheme`).
    pub scheme: String,
    /// `host` or `host:port` (`HTTP_HOST`); `localhost` when the request had no `Host`.
    pub host: String,
    /// Path prefix added by the proxy (`X-Forwarded-Prefix`, `SCRIPT_NAME`), `""` if none.
    pub prefix: String,
    /// The client's address the proxy reported (`REMOTE_ADDR`), if any.
    pub client: Option<String>,
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

/// RFC 7239 values may be quoted strings (`for="[2001:db8::1]:80"`); links need them bare.
fn unquote(v: &str) -> &str {
    let v = v.trim();
    v.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(v)
}

impl Origin {
    /// The origin of a request with `headers`; the proxy headers are read only when
    /// `parse_proxy_headers` (`enable_proxy_headers_parsing`).
    pub fn of(headers: &HeaderMap, parse_proxy_headers: bool) -> Origin {
        let mut o = Origin {
            scheme: "http".into(),
            host: header(headers, "host").unwrap_or("localhost").to_string(),
            prefix: String::new(),
            client: None,
        };
        if !parse_proxy_headers {
            return o;
        }
        if let Some(fwd) = header(headers, "forwarded") {
            // First proxy only; `key=value` pairs separated by `;`, keys case-insensitive.
            let first = fwd.split(',').next().unwrap_or_default();
            for pair in first.split(';') {
                let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                let v = unquote(v);
                if v.is_empty() {
                    continue;
                }
                match k.trim().to_ascii_lowercase().as_str() {
                    "proto" => o.scheme = v.to_string(),
                    "host" => o.host = v.to_string(),
                    "for" => o.client = Some(v.to_string()),
                    _ => {}
                }
            }
        } else {
            if let Some(v) = header(headers, "x-forwarded-proto") {
                o.scheme = v.to_string();
            }
            if let Some(v) = header(headers, "x-forwarded-host") {
                o.host = v.to_string();
            }
            o.client = header(headers, "x-forwarded-for").map(String::from);
        }
        if let Some(p) = header(headers, "x-forwarded-prefix") {
            o.prefix = p.trim_end_matches('/').to_string();
        }
        o
    }

    /// `scheme://host[:port]` without the scheme's default port (webob `host_url`).
    pub fn host_url(&self) -> String {
        let default_port = match self.scheme.as_str() {
            "https" => Some(":443"),
            "http" => Some(":80"),
            _ => None,
        };
        // `[::1]:443` has a port; `[::1]` does not.
        let host = match default_port {
            Some(p) if self.host.ends_with(p) && !self.host.ends_with(']') => {
                &self.host[..self.host.len() - p.len()]
            }
            _ => self.host.as_str(),
        };
        format!("{}://{host}", self.scheme)
    }

    /// The URL of `path` on this origin (webob `path_url`: host URL, prefix, path).
    pub fn url(&self, path: &str) -> String {
        format!("{}{}{path}", self.host_url(), self.prefix)
    }
}

/// The client's address as the request's `REMOTE_ADDR` after `HTTPProxyToWSGI`: the proxy's
/// `for=` / `X-Forwarded-For` (verbatim) when `parse_proxy_headers` and present, else the TCP
/// peer's IP (`ConnectInfo`, absent for in-process requests).
pub fn remote_addr(
    headers: &HeaderMap,
    extensions: &Extensions,
    parse_proxy_headers: bool,
) -> Option<String> {
    Origin::of(headers, parse_proxy_headers).client.or_else(|| {
        extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip().to_string())
    })
}

/// The IP address in a `REMOTE_ADDR` value. Python's `ipaddress.ip_address` (what
/// oslo.middleware's healthcheck applies) fails with a 500 on anything but a bare address;
/// here the first `X-Forwarded-For` element counts and quotes, `[...]` and a port are
/// stripped (`"[2001:db8::1]:4711"`, `192.0.2.7:80`). `None` when no address is left.
pub fn client_ip(remote_addr: &str) -> Option<IpAddr> {
    let first = unquote(remote_addr.split(',').next().unwrap_or_default());
    if let Ok(ip) = first.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Ok(sa) = first.parse::<SocketAddr>() {
        return Some(sa.ip());
    }
    let bracketed = first.strip_prefix('[')?;
    bracketed.split(']').next()?.parse().ok()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn h(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut m = HeaderMap::new();
        for (k, v) in pairs {
            m.append(*k, v.parse().unwrap());
        }
        m
    }

    #[test]
    fn ignored_unless_enabled() {
        let hs = h(&[
            ("host", "10.0.0.5:9876"),
            ("x-forwarded-proto", "https"),
            ("x-forwarded-host", "lb.example.com"),
            ("forwarded", "proto=https;host=evil"),
            ("x-forwarded-prefix", "/load-balancer"),
        ]);
        assert_eq!(Origin::of(&hs, false).url("/v2"), "http://10.0.0.5:9876/v2");
        assert_eq!(Origin::of(&h(&[]), false).url("/"), "http://localhost/");
    }

    #[test]
    fn x_forwarded_headers() {
        let hs = h(&[
            ("host", "10.0.0.5:9876"),
            ("x-forwarded-proto", "https"),
            ("x-forwarded-host", "lb.example.com:443"),
            ("x-forwarded-for", "192.0.2.7"),
            ("x-forwarded-prefix", "/load-balancer/"),
        ]);
        let o = Origin::of(&hs, true);
        assert_eq!(o.url("/v2"), "https://lb.example.com/load-balancer/v2");
        assert_eq!(o.client.as_deref(), Some("192.0.2.7"));
        // Only the scheme: the Host header stays, its non-default port too.
        let hs = h(&[("host", "api:8443"), ("x-forwarded-proto", "https")]);
        assert_eq!(Origin::of(&hs, true).url("/"), "https://api:8443/");
        let hs = h(&[("host", "[::1]:80")]);
        assert_eq!(Origin::of(&hs, true).url("/"), "http://[::1]/");
        let hs = h(&[("host", "[::1]"), ("x-forwarded-proto", "https")]);
        assert_eq!(Origin::of(&hs, true).url("/"), "https://[::1]/");
    }

    #[test]
    fn forwarded_wins_and_its_first_element_counts() {
        let hs = h(&[
            ("host", "10.0.0.5:9876"),
            ("x-forwarded-proto", "http"),
            ("x-forwarded-host", "ignored"),
            (
                "forwarded",
                "For=\"[2001:db8::1]:4711\";Proto=https;Host=\"lb.example.com\", proto=http;host=inner",
            ),
        ]);
        let o = Origin::of(&hs, true);
        assert_eq!(o.url("/v2/lbaas"), "https://lb.example.com/v2/lbaas");
        assert_eq!(o.client.as_deref(), Some("[2001:db8::1]:4711"));
        // A Forwarded without proto/host keeps the request's own.
        let hs = h(&[("host", "a:1"), ("forwarded", "for=192.0.2.1")]);
        assert_eq!(Origin::of(&hs, true).url("/"), "http://a:1/");
    }

    #[test]
    fn remote_addresses() {
        let peer = |ip: &str| {
            let mut e = Extensions::new();
            e.insert(ConnectInfo(SocketAddr::new(ip.parse().unwrap(), 5555)));
            e
        };
        let xff = h(&[("x-forwarded-for", "192.0.2.7, 10.0.0.1")]);
        assert_eq!(
            remote_addr(&xff, &peer("127.0.0.1"), true).as_deref(),
            Some("192.0.2.7, 10.0.0.1")
        );
        assert_eq!(
            remote_addr(&xff, &peer("127.0.0.1"), false).as_deref(),
            Some("127.0.0.1")
        );
        assert_eq!(remote_addr(&xff, &Extensions::new(), false), None);
        let ip = |s: &str| client_ip(s).map(|a| a.to_string());
        assert_eq!(ip("192.0.2.7, 10.0.0.1").as_deref(), Some("192.0.2.7"));
        assert_eq!(ip("\"[2001:db8::1]:4711\"").as_deref(), Some("2001:db8::1"));
        assert_eq!(ip("[2001:db8::1]").as_deref(), Some("2001:db8::1"));
        assert_eq!(ip("192.0.2.7:80").as_deref(), Some("192.0.2.7"));
        assert_eq!(ip("::1").as_deref(), Some("::1"));
        assert_eq!(ip("unknown"), None);
        assert_eq!(ip("_hidden"), None);
    }
}
