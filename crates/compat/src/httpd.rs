//! `httpd …` as RHOSO's octavia-operator starts Octavia's API: `/usr/sbin/httpd -DFOREGROUND`
//! reading `/etc/httpd/conf/httpd.conf` (Apache 2.4 with mod_wsgi, `Listen 9876`, one
//! `<VirtualHost *:9876>` per endpoint with `WSGIScriptAlias / /usr/bin/octavia-wsgi` and,
//! for a TLS endpoint, `SSLEngine on` with its certificate and key).
//!
//! The command line is httpd(8)'s (`-D NAME`, `-d SERVERROOT`, `-f FILE`, `-C`/`-c DIRECTIVE`,
//! `-k start|stop|graceful-stop|restart|graceful`, `-e LEVEL`, `-E FILE`, `-t`, `-T`, `-S`,
//! `-M`, `-v`, `-V`, `-l`, `-X`, `-h`); Keel never detaches, so serving needs `-DFOREGROUND`
//! (or `-DNO_DETACH`, `-X`). The files are read as Apache reads them ([`Reader`]) and every
//! directive is sorted by [`Sorter::directive`]: honoured (`Listen`, `<VirtualHost>`,
//! `WSGIScriptAlias /` naming `octavia-wsgi`, `SSLEngine`/`SSLCertificateFile`/
//! `SSLCertificateKeyFile` — one certificate per `ServerName` by SNI on a shared port —,
//! `PidFile`, `ServerRoot`, `Include*`, `Define`, `LoadModule` for `<IfModule>`), accepted
//! because Keel already behaves so, ignored and named at start-up with the reason, or
//! refused naming file, line and directive (a directive of a module no `LoadModule` loaded,
//! as Apache's `Invalid command`; an unknown directive; a `WSGIScriptAlias` of another
//! application). Each `Listen` port becomes one listener serving Octavia when every
//! VirtualHost on it (or, with none, the main server) maps `/` to `octavia-wsgi`.
//!
//! ```
//! use compat::Build;
//! use compat::httpd::{Request, parse};
//!
//! let build = Build { version: "0.1.0", commit: "afeb6d9" };
//! let Ok(Request::Print { text, stderr: false }) = parse(&["-v".to_string()], &build) else {
//!     panic!("not printed")
//! };
//! assert!(text.starts_with("Server version: Apache/2.4."), "{text}");
//! assert!(text.contains("(Keel 0.1.0, commit afeb6d9)"), "{text}");
//! ```

mod conf;
mod error;
mod table;

use std::path::{Path, PathBuf};

pub use conf::{Directive, Reader};
pub use error::HttpdError;
use error::USAGE;

use crate::Build;
use crate::uwsgi::{Listen, SniCert};

/// The compiled-in ServerRoot and configuration file of RHEL's httpd (`httpd -V`).
pub const HTTPD_ROOT: &str = "/etc/httpd";
/// [`HTTPD_ROOT`]-relative default of `-f`.
pub const SERVER_CONFIG_FILE: &str = "conf/httpd.conf";

/// What the configuration asks of the API server.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// One listener per `Listen`.
    pub listen: Vec<Listen>,
    /// `PidFile` (under the final ServerRoot), written with Keel's PID once bound.
    pub pidfile: Option<PathBuf>,
    /// `(FILE:LINE, directive, reason)` of every directive without effect, logged at start-up.
    pub ignored: Vec<(String, String, &'static str)>,
}

/// What `httpd <args>` asks for.
#[derive(Debug)]
pub enum Request {
    /// Serve the API as the plan says.
    Serve(Plan),
    /// `-k stop|graceful-stop|restart|graceful`: this signal (`kill -s` name) to the PID in
    /// the configuration's `PidFile`.
    Signal {
        /// The pidfile.
        pidfile: PathBuf,
        /// `TERM` or `HUP`.
        signal: &'static str,
    },
    /// `-t`, `-v`, `-V`, `-l`, `-M`, `-S`, `-h`: print this (to stdout; `-t`'s to stderr
    /// as httpd does) and exit 0.
    Print {
        /// The text.
        text: String,
        /// Printed on stderr.
        stderr: bool,
    },
}

#[derive(Debug, Default)]
struct Cli {
    defines: Vec<String>,
    root: Option<String>,
    file: Option<String>,
    pre: Vec<String>,
    post: Vec<String>,
    k: Option<String>,
    show: Option<char>,
    foreground: bool,
}

fn usage(why: impl Into<String>) -> HttpdError {
    HttpdError::Usage(why.into())
}

/// httpd's getopt string: the options that take an argument.
const WITH_ARG: &[char] = &['C', 'c', 'D', 'd', 'E', 'e', 'f', 'k'];

fn read_cli(args: &[String]) -> Result<Cli, HttpdError> {
    let mut cli = Cli::default();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        let Some(flags) = a.strip_prefix('-').filter(|f| !f.is_empty()) else {
            return Err(usage(format!("unexpected argument {a:?}")));
        };
        let chars: Vec<char> = flags.chars().collect();
        let mut k = 0;
        while k < chars.len() {
            let c = chars[k];
            k += 1;
            let value = if WITH_ARG.contains(&c) {
                let rest: String = chars[k..].iter().collect();
                k = chars.len();
                if !rest.is_empty() {
                    rest
                } else {
                    let v = args
                        .get(i)
                        .ok_or_else(|| usage(format!("option requires an argument -- {c}")))?;
                    i += 1;
                    v.clone()
                }
            } else {
                String::new()
            };
            match c {
                'D' => cli.defines.push(value),
                'd' => cli.root = Some(value),
                'f' => cli.file = Some(value),
                'C' => cli.pre.push(value),
                'c' => cli.post.push(value),
                'k' => {
                    if !matches!(
                        value.as_str(),
                        "start" | "stop" | "graceful-stop" | "restart" | "graceful"
                    ) {
                        return Err(usage(format!(
                            "-k {value}: only start, restart, graceful, graceful-stop and stop"
                        )));
                    }
                    cli.k = Some(value);
                }
                // the start-up log level and file: Keel logs through oslo.log
                'e' | 'E' => {}
                // skip the DocumentRoot check: Keel has none
                'T' => {}
                'X' => cli.foreground = true,
                't' | 'S' | 'M' | 'v' | 'V' | 'l' | 'L' | 'h' | '?' => cli.show = Some(c),
                _ => return Err(usage(format!("illegal option -- {c}"))),
            }
        }
    }
    cli.foreground |= cli
        .defines
        .iter()
        .any(|d| d == "FOREGROUND" || d == "NO_DETACH");
    Ok(cli)
}

/// Parses `httpd`'s arguments (without the program name) and reads the configuration.
/// Errors: [`HttpdError::Usage`] for a command line httpd refuses (exit 1, as httpd's
/// `usage()`), [`HttpdError::Config`] naming file, line and directive.
#[allow(
    clippy::too_many_lines,
    reason = "a known exception of clippy.toml's bound"
)]
pub fn parse(args: &[String], build: &Build) -> Result<Request, HttpdError> {
    let cli = read_cli(args)?;
    let version = format!(
        "Server version: Apache/{}.{}.{} (Keel {}, commit {})\n",
        conf::VERSION.0,
        conf::VERSION.1,
        conf::VERSION.2,
        build.version,
        build.commit
    );
    let print = |text: String| {
        Ok(Request::Print {
            text,
            stderr: false,
        })
    };
    match cli.show {
        Some('h' | '?') => return print(format!("{USAGE}\n")),
        Some('v') => return print(version),
        Some('V') => {
            return print(format!(
                "{version}Server MPM:     event (Keel: one process)\n -D HTTPD_ROOT=\"{HTTPD_ROOT}\"\n \
                 -D SERVER_CONFIG_FILE=\"{SERVER_CONFIG_FILE}\"\n"
            ));
        }
        Some('l') => {
            let mut t = String::from("Compiled in modules:\n");
            for (_, src) in conf::STATIC_MODULES {
                t.push_str(&format!("  {src}\n"));
            }
            return print(t);
        }
        Some('L') => return print(table::listing()),
        _ => {}
    }
    let root = PathBuf::from(cli.root.as_deref().unwrap_or(HTTPD_ROOT));
    let file = {
        let f = cli.file.as_deref().unwrap_or(SERVER_CONFIG_FILE);
        if Path::new(f).is_absolute() {
            PathBuf::from(f)
        } else {
            root.join(f)
        }
    };
    let mut reader = Reader::new(&cli.defines, &root, table::known);
    for d in &cli.pre {
        reader.feed("-C", d)?;
    }
    let pre = reader.take();
    let (mut directives, mut reader) = reader.read(&file)?;
    for d in &cli.post {
        reader.feed("-c", d)?;
    }
    let mut all = pre;
    all.append(&mut directives);
    all.extend(reader.take());
    let mut sorter = Sorter::default();
    for d in &all {
        sorter.directive(d, &reader)?;
    }
    let pidfile = sorter.pidfile.as_ref().map(|p| reader.resolve(p));
    if cli.show == Some('M') {
        let mut t = String::from("Loaded Modules:\n");
        for m in reader.modules.iter().filter(|m| m.ends_with("_module")) {
            t.push_str(&format!(" {m}\n"));
        }
        return print(t);
    }
    if let Some(k) = cli.k.as_deref().filter(|k| *k != "start") {
        let pidfile =
            pidfile.ok_or_else(|| usage(format!("-k {k}: the configuration sets no PidFile")))?;
        let signal = if k.contains("stop") { "TERM" } else { "HUP" };
        return Ok(Request::Signal { pidfile, signal });
    }
    // judged for -t too: "Syntax OK" means Keel would serve this configuration
    let listen = sorter.listeners()?;
    if cli.show == Some('t') {
        return Ok(Request::Print {
            text: "Syntax OK\n".into(),
            stderr: true,
        });
    }
    if cli.show == Some('S') {
        let mut t = String::from("VirtualHost configuration:\n");
        for l in &listen {
            t.push_str(&format!(
                "{} {}\n",
                l.addr,
                if l.tls.is_some() { "tls" } else { "http" }
            ));
        }
        t.push_str(&format!(
            "ServerRoot: \"{}\"\n",
            reader.server_root.display()
        ));
        return print(t);
    }
    if !cli.foreground {
        return Err(usage(
            "Keel does not detach from its terminal: start it with -DFOREGROUND (as the \
             container images and httpd.service do)",
        ));
    }
    Ok(Request::Serve(Plan {
        listen,
        pidfile,
        ignored: grouped(sorter.ignored),
    }))
}

/// One entry per directive and reason, its lines joined (`a.conf:3, b.conf:7`), in the order
/// first met: the operator's files repeat the log directives in every VirtualHost.
fn grouped(ignored: Vec<(String, String, &'static str)>) -> Vec<(String, String, &'static str)> {
    let mut out: Vec<(String, String, &'static str)> = Vec::new();
    for (at, name, why) in ignored {
        match out
            .iter_mut()
            .find(|(_, n, w)| n.eq_ignore_ascii_case(&name) && *w == why)
        {
            Some(e) => {
                e.0.push_str(", ");
                e.0.push_str(&at);
            }
            None => out.push((at, name, why)),
        }
    }
    out
}

/// One server: the main one or a `<VirtualHost>`.
#[derive(Debug, Default, Clone)]
struct Host {
    at: String,
    /// `(address, port)`: `None` port for `*`/none.
    addrs: Vec<(String, Option<u16>)>,
    names: Vec<String>,
    /// `(FILE:LINE, is Octavia at /)`.
    script: Option<(String, bool)>,
    ssl: Option<bool>,
    /// `SetEnvIf … HTTPS=1` lines: nothing in a TLS server, ignored in a plain one.
    https_env: Vec<(String, String)>,
    cert: Option<PathBuf>,
    key: Option<PathBuf>,
}

/// The directives sorted so far.
#[derive(Debug, Default)]
pub struct Sorter {
    main: Host,
    hosts: Vec<Host>,
    /// `(address, port, FILE:LINE)` of each `Listen`.
    listens: Vec<(String, u16, String)>,
    pidfile: Option<String>,
    /// URL prefixes of `Alias`es naming `octavia-wsgi` (not served, see [`table`]).
    aliases: Vec<String>,
    ignored: Vec<(String, String, &'static str)>,
}

fn refuse(d: &Directive, why: impl Into<String>) -> HttpdError {
    HttpdError::Config {
        at: d.at(),
        why: format!("{}: {}", d.name, why.into()),
    }
}

/// Whether `script` is Octavia's WSGI script (`octavia-wsgi`, older packages'
/// `octavia-api-wsgi`, or the module file).
fn is_octavia_script(script: &str) -> bool {
    let p = Path::new(script);
    script.ends_with("octavia/wsgi/api.py")
        || p.file_name()
            .is_some_and(|n| n == "octavia-wsgi" || n == "octavia-api-wsgi")
}

impl Sorter {
    fn host(&mut self, d: &Directive) -> &mut Host {
        if d.sections.iter().any(|(s, _)| s == "virtualhost")
            && let Some(h) = self.hosts.last_mut()
        {
            return h;
        }
        &mut self.main
    }

    /// Sorts one directive (see the module doc). Errors: it is refused.
    #[allow(
        clippy::too_many_lines,
        reason = "a known exception of clippy.toml's bound"
    )]
    pub fn directive(&mut self, d: &Directive, reader: &Reader) -> Result<(), HttpdError> {
        let key = d.key();
        // a section Apache's parser has no handler for, or a module's not loaded
        let Some(module) = table::module_of(&key) else {
            return Err(refuse(
                d,
                "unknown to Keel's httpd entry point (not a directive Keel honours, accepts \
                 or ignores: see docs/deploy/rhoso.md); refused rather than ignored",
            ));
        };
        // as Apache's walk of the whole tree: every LoadModule of every file counts, wherever
        // it stands (only <IfModule> is judged as the files are read)
        let loaded = if module.starts_with("mpm_") {
            reader.modules.iter().any(|m| m.starts_with("mpm_"))
        } else {
            table::is_static(module) || reader.modules.contains(module)
        };
        if !loaded {
            return Err(refuse(
                d,
                format!(
                    "Invalid command, perhaps misspelled or defined by a module not included \
                     in the server configuration (LoadModule {module})"
                ),
            ));
        }
        // inside <Location>, <Directory>, <Files>…
        if let Some((sect, sargs)) = d
            .sections
            .iter()
            .find(|(s, _)| table::is_container(s))
            .cloned()
        {
            return self.in_container(d, &key, &sect, &sargs);
        }
        let in_vhost = d.sections.iter().any(|(s, _)| s == "virtualhost");
        let args = d.args.as_slice();
        match key.as_str() {
            "loadmodule" => {
                if args.first().is_some_and(|id| !table::is_keel_module(id)) {
                    self.ignore(d, "Keel has no such module: its directives are refused");
                }
            }
            "<virtualhost>" => {
                if in_vhost {
                    return Err(refuse(d, "<VirtualHost> cannot occur within <VirtualHost>"));
                }
                let mut addrs = Vec::new();
                for a in args {
                    addrs.push(vhost_addr(d, a)?);
                }
                if addrs.is_empty() {
                    return Err(refuse(d, "needs at least one address"));
                }
                self.hosts.push(Host {
                    at: d.at(),
                    addrs,
                    ..Host::default()
                });
            }
            "listen" => {
                if in_vhost {
                    return Err(refuse(d, "not allowed in <VirtualHost>"));
                }
                let (addr, port) = match args {
                    [a] | [a, _] => listen_addr(d, a)?,
                    _ => return Err(refuse(d, "expected [address:]port [protocol]")),
                };
                if self
                    .listens
                    .iter()
                    .any(|(a, p, _)| *a == addr && *p == port)
                {
                    return Err(refuse(
                        d,
                        format!("cannot define multiple Listeners on {addr}:{port}"),
                    ));
                }
                self.listens.push((addr, port, d.at()));
            }
            "pidfile" => {
                let [p] = args else {
                    return Err(refuse(d, "takes one path"));
                };
                self.pidfile = Some(p.clone());
            }
            "servername" | "serveralias" => {
                let names = args.iter().map(|n| {
                    n.rsplit_once(':')
                        .filter(|(_, p)| p.parse::<u16>().is_ok())
                        .map_or(n.as_str(), |(h, _)| h)
                        .to_ascii_lowercase()
                });
                let h = self.host(d);
                h.names.extend(names);
            }
            "wsgiscriptalias" => {
                let [url, script, opts @ ..] = args else {
                    return Err(refuse(d, "expected URL-path file-path [options]"));
                };
                for o in opts {
                    let k = o.split_once('=').map_or(o.as_str(), |(k, _)| k);
                    if !matches!(
                        k,
                        "process-group" | "application-group" | "pass-authorization"
                    ) {
                        return Err(refuse(d, format!("option {o:?} is not one Keel takes")));
                    }
                }
                if !is_octavia_script(script) {
                    return Err(refuse(
                        d,
                        format!(
                            "{script:?} is not Octavia's API (octavia-wsgi): Keel serves nothing else"
                        ),
                    ));
                }
                if !url.trim_end_matches('/').is_empty() {
                    return Err(refuse(
                        d,
                        format!("Octavia under {url:?}: Keel serves the API at / only"),
                    ));
                }
                let at = d.at();
                self.host(d).script = Some((at, true));
            }
            "alias" | "scriptalias" => {
                let [url, path] = args else {
                    return Err(refuse(d, "expected URL-path file-path"));
                };
                if !is_octavia_script(path) {
                    return Err(refuse(d, "Keel serves no files, only Octavia's API"));
                }
                self.aliases.push(url.trim_end_matches('/').to_string());
                self.ignore(
                    d,
                    "Octavia under a path prefix is not served: Keel mounts the API at / only \
                     (every VirtualHost's WSGIScriptAlias / answers the port)",
                );
            }
            "sslengine" => {
                let on = match args.first().map(|a| a.to_ascii_lowercase()).as_deref() {
                    Some("on") => true,
                    Some("off") => false,
                    _ => {
                        return Err(refuse(
                            d,
                            "only on and off (optional's TLS upgrade is not implemented)",
                        ));
                    }
                };
                self.host(d).ssl = Some(on);
            }
            "sslcertificatefile" | "sslcertificatekeyfile" => {
                let [p] = args else {
                    return Err(refuse(d, "takes one path"));
                };
                let p = reader.resolve(p);
                if !p.is_file() {
                    return Err(refuse(d, format!("{}: file does not exist", p.display())));
                }
                let is_key = key == "sslcertificatekeyfile";
                let h = self.host(d);
                let slot = if is_key { &mut h.key } else { &mut h.cert };
                if slot.is_some() {
                    return Err(refuse(
                        d,
                        "one certificate and key per server (no second algorithm's pair)",
                    ));
                }
                *slot = Some(p);
            }
            "sslprotocol" => self.ssl_protocol(d)?,
            "require" => require_all_granted(d)?,
            "sethandler" => {
                return Err(refuse(
                    d,
                    "Keel serves only Octavia's API: no handlers to set",
                ));
            }
            "sslverifyclient" => {
                if !args.first().is_some_and(|a| a.eq_ignore_ascii_case("none")) {
                    return Err(refuse(
                        d,
                        "client certificate authentication is not implemented",
                    ));
                }
            }
            "setenvif" | "setenvifnocase" => {
                let https = args
                    .get(2)
                    .is_some_and(|a| a.eq_ignore_ascii_case("HTTPS=1"));
                if https {
                    // judged once the server's SSLEngine is known (it may come later)
                    let at = (d.at(), d.name.clone());
                    self.host(d).https_env.push(at);
                } else {
                    self.ignore(
                        d,
                        "environment variables only choose CustomLog formats, which Keel \
                         does not write",
                    );
                }
            }
            _ => match table::sort(&key) {
                table::Class::Accepted => {}
                table::Class::Ignored(why) => self.ignore(d, why),
                table::Class::Honoured | table::Class::Container => {}
            },
        }
        Ok(())
    }

    fn ignore(&mut self, d: &Directive, why: &'static str) {
        self.ignored.push((d.at(), d.name.clone(), why));
    }

    /// A directive inside `<Location>`, `<Directory>`…: all of a section on an ignored
    /// `Alias` prefix is ignored with it; elsewhere only what changes no answer is taken.
    fn in_container(
        &mut self,
        d: &Directive,
        key: &str,
        sect: &str,
        sargs: &[String],
    ) -> Result<(), HttpdError> {
        let on_alias = sect.starts_with("location")
            && sargs
                .first()
                .is_some_and(|p| self.aliases.contains(&p.trim_end_matches('/').to_string()));
        if on_alias {
            return Ok(());
        }
        match key {
            "require" => require_all_granted(d)?,
            "options" | "allowoverride" | "adddefaultcharset" => {}
            _ => match table::sort(key) {
                table::Class::Accepted => {}
                // without effect anywhere, so here too
                table::Class::Ignored(why) => self.ignore(d, why),
                table::Class::Honoured | table::Class::Container => {
                    return Err(refuse(
                        d,
                        format!(
                            "not taken inside <{sect}> by Keel (it would change what is served there)"
                        ),
                    ));
                }
            },
        }
        Ok(())
    }

    /// `SSLProtocol`: accepted when it allows TLS 1.2 and 1.3 (rustls's), ignored and named
    /// when it allows older versions too, refused when it excludes 1.2 or 1.3.
    fn ssl_protocol(&mut self, d: &Directive) -> Result<(), HttpdError> {
        let all = ["sslv3", "tlsv1", "tlsv1.1", "tlsv1.2", "tlsv1.3"];
        let mut on: Vec<&str> = Vec::new();
        for a in &d.args {
            let a = a.to_ascii_lowercase();
            let (add, name) = match a.as_bytes().first() {
                Some(b'+') => (true, &a[1..]),
                Some(b'-') => (false, &a[1..]),
                _ => (true, a.as_str()),
            };
            let set: Vec<&str> = match name {
                "all" => all.to_vec(),
                "sslv2" => vec![],
                n => match all.iter().find(|x| **x == n) {
                    Some(x) => vec![*x],
                    None => return Err(refuse(d, format!("unknown protocol {name:?}"))),
                },
            };
            for s in set {
                on.retain(|x| *x != s);
                if add {
                    on.push(s);
                }
            }
        }
        if !on.contains(&"tlsv1.2") || !on.contains(&"tlsv1.3") {
            return Err(refuse(
                d,
                "Keel's TLS (rustls) offers TLS 1.2 and 1.3; a narrower set is not implemented",
            ));
        }
        if on.len() > 2 {
            self.ignore(
                d,
                "rustls does not offer SSLv3, TLS 1.0 or 1.1: only TLS 1.2 and 1.3",
            );
        }
        Ok(())
    }

    /// The listeners: one per `Listen`, served when every VirtualHost on its port (or the
    /// main server, with none) maps `/` to Octavia, TLS when they have `SSLEngine on`.
    /// Errors name the `Listen` or `<VirtualHost>` line.
    #[allow(
        clippy::too_many_lines,
        reason = "a known exception of clippy.toml's bound"
    )]
    pub fn listeners(&mut self) -> Result<Vec<Listen>, HttpdError> {
        let main_ssl = self.main.ssl;
        for h in self.hosts.iter().chain(std::iter::once(&self.main)) {
            if h.ssl.or(main_ssl) != Some(true) {
                for (at, name) in &h.https_env {
                    self.ignored.push((
                        at.clone(),
                        name.clone(),
                        "HTTPS=1 in a plain-HTTP server: the scheme of links comes from the \
                         listener, or the proxy's X-Forwarded-Proto with [oslo_middleware] \
                         enable_proxy_headers_parsing",
                    ));
                }
            }
        }
        let cfg = |at: &str, why: String| HttpdError::Config {
            at: at.to_string(),
            why,
        };
        if self.listens.is_empty() {
            return Err(usage(
                "no listening sockets available (no Listen directive)",
            ));
        }
        let mut out = Vec::new();
        for (addr, port, at) in &self.listens {
            let on: Vec<&Host> = self
                .hosts
                .iter()
                .filter(|h| h.addrs.iter().any(|(_, p)| p.is_none_or(|p| p == *port)))
                .collect();
            let servers: Vec<&Host> = if on.is_empty() { vec![&self.main] } else { on };
            let mut tls: Vec<(Vec<String>, PathBuf, PathBuf)> = Vec::new();
            let mut plain = None;
            for h in &servers {
                let where_ = if h.at.is_empty() {
                    at.as_str()
                } else {
                    h.at.as_str()
                };
                if h.script
                    .as_ref()
                    .or(self.main.script.as_ref())
                    .is_none_or(|s| !s.1)
                {
                    return Err(cfg(
                        where_,
                        format!(
                            "port {port}: no WSGIScriptAlias / naming octavia-wsgi here, so \
                             Apache would serve something other than Octavia on it"
                        ),
                    ));
                }
                if h.ssl.or(self.main.ssl).unwrap_or(false) {
                    let Some(cert) = h.cert.clone().or(self.main.cert.clone()) else {
                        return Err(cfg(
                            where_,
                            "SSLEngine on without SSLCertificateFile".into(),
                        ));
                    };
                    let key = h
                        .key
                        .clone()
                        .or(self.main.key.clone())
                        .unwrap_or(cert.clone());
                    tls.push((h.names.clone(), cert, key));
                } else {
                    plain = Some(where_);
                }
            }
            if let (Some(p), false) = (plain, tls.is_empty()) {
                return Err(cfg(
                    p,
                    format!(
                        "port {port}: this server is plain HTTP and another on the port is TLS; Keel serves one or the other on a port"
                    ),
                ));
            }
            let addr = format!("{addr}:{port}");
            let listen = match tls.split_first() {
                None => Listen {
                    addr,
                    tls: None,
                    sni: Vec::new(),
                },
                Some(((_, cert, key), rest)) => {
                    // one pair for the port: no SNI; else each ServerName/ServerAlias its own
                    let same = rest.iter().all(|(_, c, k)| c == cert && k == key);
                    let sni = if same {
                        Vec::new()
                    } else {
                        tls.iter()
                            .flat_map(|(names, c, k)| {
                                names.iter().map(|n| SniCert {
                                    name: n.clone(),
                                    cert: c.clone(),
                                    key: k.clone(),
                                })
                            })
                            .collect()
                    };
                    Listen {
                        addr,
                        tls: Some((cert.clone(), key.clone())),
                        sni,
                    }
                }
            };
            out.push(listen);
        }
        Ok(out)
    }
}

/// `Require`: only `all granted` (what Apache 2.4 serves with no `Require` at all).
fn require_all_granted(d: &Directive) -> Result<(), HttpdError> {
    let a: Vec<String> = d.args.iter().map(|a| a.to_ascii_lowercase()).collect();
    if a != ["all", "granted"] {
        return Err(refuse(
            d,
            "access control is not implemented (Keel answers every request that Keystone \
             authenticates): only `Require all granted`",
        ));
    }
    Ok(())
}

/// `<VirtualHost>`'s `addr[:port]`: `*`, `_default_`; a specific address is refused (Keel
/// does not pick servers by the address a connection came to).
fn vhost_addr(d: &Directive, a: &str) -> Result<(String, Option<u16>), HttpdError> {
    let (host, port) = match a.rsplit_once(':') {
        Some((h, p)) if !h.is_empty() && !p.contains(']') => (h, Some(p)),
        _ => (a, None),
    };
    if host != "*" && host != "_default_" {
        return Err(refuse(
            d,
            format!("{a:?}: address-based virtual hosts are not implemented: use *:PORT"),
        ));
    }
    let port = match port {
        None | Some("*") => None,
        Some(p) => Some(
            p.parse::<u16>()
                .map_err(|_| refuse(d, format!("{a:?}: the port is not a number")))?,
        ),
    };
    Ok((host.to_string(), port))
}

/// `Listen [address:]port`: a port alone binds every address (`[::]`, dual-stack, where the
/// host has IPv6, else `0.0.0.0`, as APR's wildcard).
fn listen_addr(d: &Directive, a: &str) -> Result<(String, u16), HttpdError> {
    let (host, port) = match a.rsplit_once(':') {
        Some((h, p)) if !p.contains(']') => (h.to_string(), p),
        _ => (String::new(), a),
    };
    let port = port
        .parse::<u16>()
        .map_err(|_| refuse(d, format!("{a:?}: the port is not a number")))?;
    let host = if host.is_empty() || host == "*" {
        if std::net::TcpListener::bind("[::]:0").is_ok() {
            "[::]".to_string()
        } else {
            "0.0.0.0".to_string()
        }
    } else {
        host
    };
    Ok((host, port))
}

#[cfg(test)]
mod tests;
