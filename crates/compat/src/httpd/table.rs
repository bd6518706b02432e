//! Every directive Keel's httpd entry point knows: its module (as Apache's `Invalid command`
//! check: a directive of a module no `LoadModule` loaded is refused) and how it is sorted.
//! Names from the Apache 2.4 directive index and mod_wsgi's configuration directives.

/// How a directive is sorted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Read by [`super::Sorter::directive`]'s own arms.
    Honoured,
    /// Keel already behaves as the directive asks (or it changes nothing Keel serves).
    Accepted,
    /// No effect in Keel: logged at start-up with this reason.
    Ignored(&'static str),
    /// `<Location>`, `<Directory>`…: their contents are judged one by one.
    Container,
}

use Class::*;

const LOGS: Class = Ignored(
    "Keel writes its request and error lines through oslo.log's settings (octavia.conf's \
     [DEFAULT] log_file, log_dir, use_stderr), not Apache's logs",
);
const ONE_PROCESS: Class = Ignored(
    "Keel is one multi-threaded process: no mod_wsgi daemon processes, interpreters or \
     worker counts",
);
const IDENTITY: Class = Ignored(
    "Keel never switches user or group: it runs as it is started (Apache switches only when \
     started as root; RHOSO's pod runs it as octavia, runAsNonRoot, where Apache ignores \
     User and Group too)",
);
const NO_FILES: Class = Ignored("Octavia's API serves no files: MIME types do not apply");
const SSL_CACHE: Class = Ignored(
    "rustls keeps its own session cache and entropy: mod_ssl's caches, mutexes and seeds do \
     not apply",
);

/// `(directive lower-cased, module identifier, class)`.
const TABLE: &[(&str, &str, Class)] = &[
    // core
    ("serverroot", "core_module", Honoured),
    ("include", "core_module", Honoured),
    ("includeoptional", "core_module", Honoured),
    ("define", "core_module", Honoured),
    ("undefine", "core_module", Honoured),
    ("listen", "core_module", Honoured),
    ("pidfile", "core_module", Honoured),
    ("servername", "core_module", Honoured),
    ("serveralias", "core_module", Honoured),
    ("<virtualhost>", "core_module", Honoured),
    ("<location>", "core_module", Container),
    ("<locationmatch>", "core_module", Container),
    ("<directory>", "core_module", Container),
    ("<directorymatch>", "core_module", Container),
    ("<files>", "core_module", Container),
    ("<filesmatch>", "core_module", Container),
    ("<ifdefine>", "core_module", Honoured),
    ("<ifmodule>", "core_module", Honoured),
    ("<iffile>", "core_module", Honoured),
    ("<ifdirective>", "core_module", Honoured),
    ("<ifsection>", "core_module", Honoured),
    ("<ifversion>", "version_module", Honoured),
    (
        "servertokens",
        "core_module",
        Ignored("Keel sends no Server header at all (less than ServerTokens Prod's `Apache`)"),
    ),
    (
        "serversignature",
        "core_module",
        Ignored("Keel's error bodies are Octavia's JSON faults, never signed HTML pages"),
    ),
    // Keel's router answers TRACE 405 (Allow lists the path's methods), as TraceEnable Off
    ("traceenable", "core_module", Accepted),
    (
        "timeout",
        "core_module",
        Ignored("no per-connection I/O timeout: Keel bounds its own peer calls"),
    ),
    ("keepalive", "core_module", Accepted),
    ("keepalivetimeout", "core_module", Accepted),
    ("maxkeepaliverequests", "core_module", Accepted),
    ("serveradmin", "core_module", Accepted),
    ("hostnamelookups", "core_module", Accepted),
    ("usecanonicalname", "core_module", Accepted),
    ("errorlog", "core_module", LOGS),
    ("errorlogformat", "core_module", LOGS),
    ("loglevel", "core_module", LOGS),
    ("mutex", "core_module", SSL_CACHE),
    ("options", "core_module", Accepted),
    ("allowoverride", "core_module", Accepted),
    ("adddefaultcharset", "core_module", Accepted),
    ("enablesendfile", "core_module", Accepted),
    ("enablemmap", "core_module", Accepted),
    ("sethandler", "core_module", Honoured),
    (
        "documentroot",
        "core_module",
        Ignored("Octavia's API serves no files"),
    ),
    ("loadmodule", "so_module", Honoured),
    // unixd
    ("user", "unixd_module", IDENTITY),
    ("group", "unixd_module", IDENTITY),
    // MPMs
    ("startservers", "mpm_event_module", ONE_PROCESS),
    ("minsparethreads", "mpm_event_module", ONE_PROCESS),
    ("maxsparethreads", "mpm_event_module", ONE_PROCESS),
    ("threadsperchild", "mpm_event_module", ONE_PROCESS),
    ("maxrequestworkers", "mpm_event_module", ONE_PROCESS),
    ("serverlimit", "mpm_event_module", ONE_PROCESS),
    ("maxconnectionsperchild", "mpm_event_module", ONE_PROCESS),
    // mod_wsgi
    ("wsgiscriptalias", "wsgi_module", Honoured),
    ("wsgidaemonprocess", "wsgi_module", ONE_PROCESS),
    ("wsgiprocessgroup", "wsgi_module", ONE_PROCESS),
    ("wsgiapplicationgroup", "wsgi_module", ONE_PROCESS),
    ("wsgisocketprefix", "wsgi_module", ONE_PROCESS),
    (
        "wsgipythonhome",
        "wsgi_module",
        Ignored("no Python interpreter in Keel"),
    ),
    (
        "wsgipythonpath",
        "wsgi_module",
        Ignored("no Python interpreter in Keel"),
    ),
    // Octavia's API reads the X-Auth-Token header, which Keel always sees
    ("wsgipassauthorization", "wsgi_module", Accepted),
    ("wsgirestrictstdout", "wsgi_module", Accepted),
    // mod_ssl
    ("sslengine", "ssl_module", Honoured),
    ("sslcertificatefile", "ssl_module", Honoured),
    ("sslcertificatekeyfile", "ssl_module", Honoured),
    ("sslprotocol", "ssl_module", Honoured),
    ("sslverifyclient", "ssl_module", Honoured),
    (
        "sslciphersuite",
        "ssl_module",
        Ignored("rustls offers only its safe TLS 1.2/1.3 suites"),
    ),
    ("sslhonorcipherorder", "ssl_module", Accepted),
    ("sslrandomseed", "ssl_module", SSL_CACHE),
    ("sslsessioncache", "ssl_module", SSL_CACHE),
    ("sslsessioncachetimeout", "ssl_module", SSL_CACHE),
    ("sslstaplingcache", "ssl_module", SSL_CACHE),
    ("sslcryptodevice", "ssl_module", SSL_CACHE),
    // builtin: the key files are read unencrypted, as builtin with no passphrase
    ("sslpassphrasedialog", "ssl_module", Accepted),
    // Off: Keel sends no OCSP responses
    ("sslusestapling", "ssl_module", Accepted),
    (
        "ssloptions",
        "ssl_module",
        Ignored("no CGI/WSGI environment: Keel's API reads no SSL_* variables"),
    ),
    (
        "sslcacertificatefile",
        "ssl_module",
        Ignored("only used to verify client certificates, which Keel does not ask for"),
    ),
    // mod_alias
    ("alias", "alias_module", Honoured),
    ("scriptalias", "alias_module", Honoured),
    // mod_log_config
    ("logformat", "log_config_module", LOGS),
    ("customlog", "log_config_module", LOGS),
    ("transferlog", "log_config_module", LOGS),
    // mod_setenvif
    ("setenvif", "setenvif_module", Honoured),
    ("setenvifnocase", "setenvif_module", Honoured),
    // mod_mime
    ("typesconfig", "mime_module", NO_FILES),
    ("addtype", "mime_module", NO_FILES),
    ("addencoding", "mime_module", NO_FILES),
    ("addcharset", "mime_module", NO_FILES),
    // mod_dir
    ("directoryindex", "dir_module", NO_FILES),
    // mod_authz_core
    ("require", "authz_core_module", Honoured),
];

/// The modules Keel stands in for (those of [`TABLE`]), which `LoadModule` may load.
pub fn is_keel_module(id: &str) -> bool {
    TABLE.iter().any(|(_, m, _)| *m == id) || id.starts_with("mpm_")
}

/// Modules compiled in (no `LoadModule` needed).
pub fn is_static(module: &str) -> bool {
    super::conf::STATIC_MODULES
        .iter()
        .any(|(id, _)| *id == module)
}

/// The module of a known directive (`mpm_event_module`'s also under prefork and worker).
pub fn module_of(key: &str) -> Option<&'static str> {
    TABLE.iter().find(|(k, _, _)| *k == key).map(|(_, m, _)| *m)
}

/// Whether Keel knows the directive (`<IfDirective>`, `<IfSection>` with `<name>`).
pub fn known(key: &str) -> bool {
    module_of(key).is_some()
}

/// The class of a known directive (`Accepted` for an unknown one's caller never asks).
pub fn sort(key: &str) -> Class {
    TABLE
        .iter()
        .find(|(k, _, _)| *k == key)
        .map_or(Accepted, |(_, _, c)| *c)
}

/// `location`, `directory`, `files` and their `…match` forms.
pub fn is_container(section: &str) -> bool {
    sort(&format!("<{section}>")) == Container
}

/// `httpd -L`: each directive and its module.
pub fn listing() -> String {
    let mut t = String::new();
    for (k, m, c) in TABLE {
        let how = match c {
            Honoured => "honoured",
            Accepted => "accepted",
            Ignored(_) => "ignored",
            Container => "section",
        };
        t.push_str(&format!("{k}\t{m}\t{how}\n"));
    }
    t
}
