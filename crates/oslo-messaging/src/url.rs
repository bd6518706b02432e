//! `transport_url` parsing, as oslo_messaging/transport.py `TransportURL.parse` (with
//! oslo_utils' `netutils.parse_host_port`) and then as oslo_messaging/_drivers/impl_rabbit.py
//! `Connection._transform_transport_url` and kombu turn each host into connection parameters.
//!
//! The form is `rabbit://[user:pass@]host[:port][,[user:pass@]host[:port]…]/virtual_host?query`:
//! hosts are separated by commas, each with its own optional credentials (percent-encoded);
//! an IPv6 address is written in brackets (`[::1]:5672`). What oslo and kombu then do with the
//! parts, and so what [`TransportUrl::endpoints`] gives:
//! - a missing or empty user name or password is `guest` (kombu's pyamqp default), not the
//!   previous host's: oslo keeps each host's own credentials (it only warns when some hosts have
//!   credentials and some do not);
//! - a missing or zero port is 5672 (oslo's `host.port or 5672`, also with `ssl`);
//! - an empty host name is `localhost`, which kombu dials as `127.0.0.1`; a URL with no
//!   host at all (`rabbit://`, oslo's default) is `guest:guest@localhost:5672`;
//! - the virtual host is the path after the first `/`, percent-decoded twice (oslo unquotes it,
//!   kombu unquotes the URL oslo builds again); empty or absent is `/`;
//! - query parameters override `[oslo_messaging_rabbit]` options
//!   ([`crate::RabbitOptions::with_url_query`]); a repeated one is joined with commas, one with
//!   an empty value is dropped (`urllib.parse.parse_qs`).

use std::fmt;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};

use crate::error::ConfigError;

/// AMQP's IANA port, oslo.messaging's default for every host (`host.port or 5672`).
pub const DEFAULT_PORT: u16 = 5672;

/// One broker address of a [`TransportUrl`], as oslo's `TransportHost`: the parts as written
/// (credentials percent-decoded), `None` where the URL has none.
#[derive(Clone, PartialEq, Eq)]
pub struct TransportHost {
    /// Host name or IP address (IPv6 without brackets); empty when the URL has none.
    pub hostname: String,
    /// Port as written (0 included); `None` when absent.
    pub port: Option<u16>,
    /// User name (percent-decoded); `None` when the host has no `user@`.
    pub username: Option<String>,
    /// Password (percent-decoded); `None` when the host has no `user:pass@`.
    pub password: Option<String>,
}

impl fmt::Debug for TransportHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TransportHost")
            .field("hostname", &self.hostname)
            .field("port", &self.port)
            .field("username", &self.username)
            .field("password", &self.password.as_ref().map(|_| "****"))
            .finish()
    }
}

/// A parsed oslo.messaging `transport_url` for the rabbit driver. Build it with
/// [`TransportUrl::parse`]; [`fmt::Display`] writes it back as oslo's `TransportURL.__str__`
/// does but with every password replaced by `****` (safe to log).
#[derive(Clone, PartialEq, Eq)]
pub struct TransportUrl {
    /// The scheme, lower-cased: always `rabbit` (the one oslo.messaging + kombu connect with).
    pub transport: String,
    /// The hosts in the order written (the client shuffles them when there are several, as
    /// oslo's `Connection.__init__`).
    pub hosts: Vec<TransportHost>,
    /// The virtual host as oslo keeps it (path after `/`, percent-decoded once); `None` when
    /// the URL has no path.
    pub virtual_host: Option<String>,
    /// Query parameters in the order first seen, repeated ones joined by commas.
    pub query: Vec<(String, String)>,
}

impl fmt::Debug for TransportUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TransportUrl({self})")
    }
}

/// One host as the client connects to it, after oslo's and kombu's defaults
/// ([`TransportUrl::endpoints`]). `localhost` is dialled as `127.0.0.1` (kombu's pyamqp
/// transport does the same) but kept as the TLS server name.
#[derive(Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// Host name or IP address (IPv6 without brackets); `localhost` when the URL has none.
    pub host: String,
    /// TCP port.
    pub port: u16,
    /// AMQP user name.
    pub username: String,
    /// AMQP password.
    pub password: String,
    /// AMQP virtual host.
    pub vhost: String,
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Endpoint({self})")
    }
}

impl fmt::Display for Endpoint {
    /// `host:port` (IPv6 in brackets), as oslo's log lines name a host.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", escape_ipv6(&self.host), self.port)
    }
}

/// Characters `urllib.parse.quote(s, '')` leaves alone: letters, digits and `_.-~`.
const QUOTE_ALL: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'_')
    .remove(b'.')
    .remove(b'-')
    .remove(b'~');
/// `urllib.parse.quote(s)` (safe `/`).
const QUOTE_PATH: &AsciiSet = &QUOTE_ALL.remove(b'/');

fn unquote(s: &str) -> String {
    percent_decode_str(s).decode_utf8_lossy().into_owned()
}

fn escape_ipv6(host: &str) -> String {
    if host.parse::<std::net::Ipv6Addr>().is_ok() {
        format!("[{host}]")
    } else {
        host.to_owned()
    }
}

/// `urllib.parse.parse_qs` then `','.join`: `+` is a space, blank values are dropped.
fn parse_query(q: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for pair in q.split(['&', ';']) {
        if pair.is_empty() {
            continue;
        }
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let k = unquote(&k.replace('+', " "));
        let v = unquote(&v.replace('+', " "));
        if v.is_empty() {
            continue;
        }
        match out.iter_mut().find(|(name, _)| *name == k) {
            Some((_, joined)) => {
                joined.push(',');
                joined.push_str(&v);
            }
            None => out.push((k, v)),
        }
    }
    out
}

impl TransportUrl {
    /// Parses a `transport_url` as oslo.messaging 18.2.0 does and refuses what its rabbit
    /// driver would not load or this client cannot honour.
    ///
    /// Errors ([`ConfigError::Url`], the URL masked): no scheme; a scheme other than `rabbit`
    /// (`kombu`, which oslo maps to a kombu transport that does not exist; `amqp` — 18.2.0 has
    /// no AMQP 1.0 driver any more —; `kafka`, `fake`; a `kombu+…`/`rabbit+…` kombu-transport
    /// selection, which oslo calls experimental); a port that is not a number or exceeds
    /// 65535; an unbalanced IPv6 bracket.
    pub fn parse(url: &str) -> Result<TransportUrl, ConfigError> {
        let raw = url.trim();
        let bad = |reason: String| ConfigError::Url {
            url: mask_raw(raw),
            reason,
        };
        let Some((scheme, rest)) = raw.split_once("://") else {
            return Err(bad("no scheme specified (expected rabbit://…)".into()));
        };
        let scheme = scheme.to_ascii_lowercase();
        if scheme.is_empty() {
            return Err(bad("no scheme specified (expected rabbit://…)".into()));
        }
        match scheme.as_str() {
            "rabbit" => {}
            "kombu" => {
                return Err(bad(
                    "scheme \"kombu\": oslo.messaging 18.2.0 loads its rabbit driver for it but \
                     then asks kombu for a transport named \"kombu\", which kombu 5 does not \
                     have (no connection is ever made); use rabbit://"
                        .into(),
                ));
            }
            s if s.contains('+') => {
                return Err(bad(format!(
                    "scheme {s:?}: selecting a kombu transport in the URL is experimental in \
                     oslo.messaging and not supported here; use rabbit://"
                )));
            }
            "amqp" | "amqps" => {
                return Err(bad(format!(
                    "scheme {scheme:?}: oslo.messaging 18.2.0 has no such driver (its AMQP 1.0 \
                     driver was removed); RabbitMQ's driver is rabbit://"
                )));
            }
            other => {
                return Err(bad(format!(
                    "scheme {other:?}: only oslo.messaging's rabbit driver (rabbit://, kombu://) \
                     is supported"
                )));
            }
        }
        // urllib.parse.urlsplit: the netloc ends at the first '/', '?' or '#'; the fragment
        // is dropped, the query starts at the first '?'.
        let rest = rest.split_once('#').map_or(rest, |(before, _)| before);
        let (before_query, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (netloc, path) = match before_query.find('/') {
            Some(i) => (&before_query[..i], Some(&before_query[i..])),
            None => (before_query, None),
        };
        if netloc.contains('[') != netloc.contains(']') {
            return Err(bad("invalid IPv6 address (unbalanced brackets)".into()));
        }
        let virtual_host = path.map(|p| unquote(&p[1..]));
        let mut hosts = Vec::new();
        for host in netloc.split(',') {
            if host.is_empty() {
                continue;
            }
            let (mut username, mut password) = (None, None);
            let hostport = match host.rsplit_once('@') {
                Some((userinfo, hostport)) => {
                    match userinfo.split_once(':') {
                        Some((u, p)) => {
                            username = Some(unquote(u));
                            password = Some(unquote(p));
                        }
                        None => username = Some(unquote(userinfo)),
                    }
                    hostport
                }
                None => host,
            };
            let (hostname, port) = parse_host_port(hostport).map_err(bad)?;
            hosts.push(TransportHost {
                hostname,
                port,
                username,
                password,
            });
        }
        Ok(TransportUrl {
            transport: scheme,
            hosts,
            virtual_host,
            query: parse_query(query),
        })
    }

    /// The hosts to connect to, in URL order, with oslo's and kombu's defaults applied (see
    /// the module doc). Never empty: no host is `guest:guest@localhost:5672`.
    pub fn endpoints(&self) -> Vec<Endpoint> {
        // kombu unquotes the URL oslo builds with the already-unquoted virtual host.
        let vhost = unquote(self.virtual_host.as_deref().unwrap_or(""));
        let vhost = if vhost.is_empty() {
            "/".to_owned()
        } else {
            vhost
        };
        let or_guest = |v: &Option<String>| match v.as_deref() {
            None | Some("") => "guest".to_owned(),
            Some(s) => s.to_owned(),
        };
        let mut out: Vec<Endpoint> = self
            .hosts
            .iter()
            .map(|h| Endpoint {
                host: match h.hostname.as_str() {
                    "" => "localhost".to_owned(),
                    other => other.to_owned(),
                },
                port: match h.port {
                    None | Some(0) => DEFAULT_PORT,
                    Some(p) => p,
                },
                username: or_guest(&h.username),
                password: or_guest(&h.password),
                vhost: vhost.clone(),
            })
            .collect();
        if out.is_empty() {
            out.push(Endpoint {
                host: "localhost".into(),
                port: DEFAULT_PORT,
                username: "guest".into(),
                password: "guest".into(),
                vhost,
            });
        }
        out
    }

    /// The value of query parameter `name`, if present.
    pub fn query_value(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// `netutils.parse_host_port` with no default port, the port range checked.
fn parse_host_port(address: &str) -> Result<(String, Option<u16>), String> {
    let port = |p: &str| -> Result<Option<u16>, String> {
        p.parse::<u16>()
            .map(Some)
            .map_err(|_| format!("port {p:?} of host {address:?} is not a number from 0 to 65535"))
    };
    if address.is_empty() {
        return Ok((String::new(), None));
    }
    if let Some(rest) = address.strip_prefix('[') {
        let Some((host, after)) = rest.split_once(']') else {
            return Err(format!("host {address:?}: unbalanced IPv6 bracket"));
        };
        if after.contains(']') || host.contains('[') {
            return Err(format!("host {address:?}: unbalanced IPv6 bracket"));
        }
        return match after.split_once(':') {
            Some((_, p)) => Ok((host.to_owned(), port(p)?)),
            None => Ok((host.to_owned(), None)),
        };
    }
    if address.matches(':').count() == 1 {
        let (host, p) = address.split_once(':').unwrap_or((address, ""));
        return Ok((host.to_owned(), port(p)?));
    }
    Ok((address.to_owned(), None))
}

/// Masks `user:pass@` passwords in a URL we could not parse, for error messages.
fn mask_raw(raw: &str) -> String {
    let Some((scheme, rest)) = raw.split_once("://") else {
        return raw.to_owned();
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (netloc, tail) = rest.split_at(end);
    let hosts: Vec<String> = netloc
        .split(',')
        .map(|h| match h.rsplit_once('@') {
            Some((userinfo, hp)) => match userinfo.split_once(':') {
                Some((u, _)) => format!("{u}:****@{hp}"),
                None => h.to_owned(),
            },
            None => h.to_owned(),
        })
        .collect();
    format!("{scheme}://{}{tail}", hosts.join(","))
}

impl fmt::Display for TransportUrl {
    /// oslo's `TransportURL.__str__` with each password written `****`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://", self.transport)?;
        for (i, h) in self.hosts.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            if h.username.is_some() || h.password.is_some() {
                if let Some(u) = &h.username {
                    write!(f, "{}", utf8_percent_encode(u, QUOTE_ALL))?;
                }
                if h.password.is_some() {
                    f.write_str(":****")?;
                }
                f.write_str("@")?;
            }
            f.write_str(&escape_ipv6(&h.hostname))?;
            if let Some(p) = h.port {
                write!(f, ":{p}")?;
            }
        }
        f.write_str("/")?;
        if let Some(v) = &self.virtual_host {
            write!(f, "{}", utf8_percent_encode(v, QUOTE_PATH))?;
        }
        for (i, (k, v)) in self.query.iter().enumerate() {
            f.write_str(if i == 0 { "?" } else { "&" })?;
            write!(
                f,
                "{}={}",
                utf8_percent_encode(k, QUOTE_ALL),
                utf8_percent_encode(v, QUOTE_ALL)
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "url_tests.rs"]
mod tests;
