#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;

const TEST_BUILD: Build = Build {
    version: "0.1.0",
    commit: "test",
};

const MODULES: &str = include_str!("../../../../ci/image/httpd/00-keel.conf");

/// A ServerRoot with `conf/httpd.conf` = `main`, `conf.modules.d/00-keel.conf` (the image's)
/// and `conf.d/` with `extra` files.
fn root(main: &str, extra: &[(&str, &str)]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for sub in ["conf", "conf.d", "conf.modules.d", "run"] {
        std::fs::create_dir_all(d.path().join(sub)).unwrap();
    }
    std::fs::write(d.path().join("conf.modules.d/00-keel.conf"), MODULES).unwrap();
    let main = main.replace("@ROOT@", &d.path().display().to_string());
    std::fs::write(d.path().join("conf/httpd.conf"), main).unwrap();
    for (n, t) in extra {
        let t = t.replace("@ROOT@", &d.path().display().to_string());
        std::fs::write(d.path().join(n), t).unwrap();
    }
    d
}

fn run(d: &tempfile::TempDir, extra: &[&str]) -> Result<Request, HttpdError> {
    let mut a: Vec<String> = vec![
        "-DFOREGROUND".into(),
        "-d".into(),
        d.path().display().to_string(),
    ];
    a.extend(extra.iter().map(|s| s.to_string()));
    parse(&a, &TEST_BUILD)
}

fn serve(d: &tempfile::TempDir) -> Plan {
    match run(d, &[]) {
        Ok(Request::Serve(p)) => p,
        other => panic!("{other:?}"),
    }
}

fn refused(d: &tempfile::TempDir) -> String {
    match run(d, &[]) {
        Err(e) => e.to_string(),
        other => panic!("not refused: {other:?}"),
    }
}

const HEAD: &str = "ServerRoot \"@ROOT@\"\nPidFile run/httpd.pid\nListen 9876\n\
                    Include conf.modules.d/*.conf\nIncludeOptional conf.d/*.conf\n";

const VHOST: &str = "<VirtualHost *:9876>\n  ServerName octavia-internal.openstack.svc\n\
                     WSGIScriptAlias / /usr/bin/octavia-wsgi\n</VirtualHost>\n";

#[test]
fn operator_layout_sorts_every_class() {
    let conf = format!(
        "ServerTokens Prod\nServerSignature Off\nTraceEnable Off\n{HEAD}User apache\n\
         Group apache\nTypesConfig /etc/mime.types\n\
         LogFormat \"%h %l %u %t \\\"%r\\\" %>s %b\" combined\n\
         SetEnvIf X-Forwarded-For \"^.*\\..*\\..*\\..*\" forwarded\n\
         CustomLog /dev/stdout combined env=!forwarded\nErrorLog /dev/stdout\n\
         <VirtualHost *:9876>\n  ServerName internal.svc\n  <IfVersion >= 2.4>\n    \
         ErrorLogFormat \"%M\"\n  </IfVersion>\n  TimeOut 120\n  WSGIProcessGroup internal\n  \
         WSGIApplicationGroup %{{GLOBAL}}\n  WSGIPassAuthorization On\n  \
         WSGIDaemonProcess internal processes=5 threads=1 user=octavia group=octavia \
         display-name=internal\n  WSGIScriptAlias / /usr/bin/octavia-wsgi\n</VirtualHost>\n\
         Alias /octavia-api /usr/bin/octavia-wsgi\n<Location /octavia-api>\n  \
         SetHandler wsgi-script\n  Options +ExecCGI\n  WSGIProcessGroup octavia-api\n\
         </Location>\n"
    );
    let d = root(&conf, &[]);
    let plan = serve(&d);
    assert_eq!(plan.listen.len(), 1);
    assert!(plan.listen[0].addr.ends_with(":9876"), "{:?}", plan.listen);
    assert_eq!(plan.listen[0].tls, None);
    assert_eq!(plan.pidfile, Some(d.path().join("run/httpd.pid")));
    let names: Vec<&str> = plan.ignored.iter().map(|(_, n, _)| n.as_str()).collect();
    // accepted ones (TraceEnable, WSGIPassAuthorization, LoadModule of Keel's modules) are
    // not named; everything without effect is, once per line
    for n in [
        "ServerTokens",
        "ServerSignature",
        "User",
        "Group",
        "TypesConfig",
        "LogFormat",
        "SetEnvIf",
        "CustomLog",
        "ErrorLog",
        "ErrorLogFormat",
        "TimeOut",
        "WSGIProcessGroup",
        "WSGIApplicationGroup",
        "WSGIDaemonProcess",
        "Alias",
    ] {
        assert!(names.contains(&n), "{n} not named: {names:?}");
    }
    for n in [
        "TraceEnable",
        "WSGIPassAuthorization",
        "LoadModule",
        "Options",
        "SetHandler",
    ] {
        assert!(!names.contains(&n), "{n} named: {names:?}");
    }
    let (at, _, _) = plan.ignored.iter().find(|(_, n, _)| n == "User").unwrap();
    assert!(at.ends_with("conf/httpd.conf:9"), "{at}");
    // one entry per directive and reason, every line named
    let (at, _, _) = plan
        .ignored
        .iter()
        .find(|(_, n, _)| n == "WSGIProcessGroup")
        .unwrap();
    assert!(at.ends_with("conf/httpd.conf:22"), "{at}");
    assert_eq!(
        names.iter().filter(|n| **n == "WSGIProcessGroup").count(),
        1
    );
}

#[test]
fn tls_vhosts_share_a_port_by_sni() {
    let d = tempfile::tempdir().unwrap();
    let certs = d.path().join("certs");
    std::fs::create_dir_all(&certs).unwrap();
    for f in ["internal.crt", "internal.key", "public.crt", "public.key"] {
        std::fs::write(certs.join(f), "x").unwrap();
    }
    let c = certs.display().to_string();
    let vhost = |name: &str| {
        format!(
            "<VirtualHost *:9876>\n ServerName octavia-{name}.openstack.svc\n \
             SetEnvIf X-Forwarded-Proto https HTTPS=1\n SSLEngine on\n \
             SSLCertificateFile \"{c}/{name}.crt\"\n SSLCertificateKeyFile \"{c}/{name}.key\"\n \
             WSGIScriptAlias / /usr/bin/octavia-wsgi\n</VirtualHost>\n"
        )
    };
    let ssl = "<IfModule mod_ssl.c>\n SSLRandomSeed startup builtin\n \
               SSLSessionCache \"shmcb:/var/cache/mod_ssl/scache(512000)\"\n \
               SSLCipherSuite ECDHE+AESGCM:DHE+AESGCM:!aNULL:!MD5:!RC4:!3DES\n \
               SSLProtocol all -SSLv2 -SSLv3 -TLSv1 -TLSv1.1\n SSLOptions StdEnvVars\n\
               </IfModule>\n<IfModule !mod_ssl.c>\n NoSuchDirective here\n</IfModule>\n";
    let r = root(
        &format!("{HEAD}{}{}", vhost("internal"), vhost("public")),
        &[("conf.d/ssl.conf", ssl)],
    );
    let plan = serve(&r);
    let l = &plan.listen[0];
    assert_eq!(
        l.tls,
        Some((certs.join("internal.crt"), certs.join("internal.key")))
    );
    let names: Vec<(&str, &Path)> = l
        .sni
        .iter()
        .map(|s| (s.name.as_str(), s.cert.as_path()))
        .collect();
    assert_eq!(
        names,
        [
            (
                "octavia-internal.openstack.svc",
                certs.join("internal.crt").as_path()
            ),
            (
                "octavia-public.openstack.svc",
                certs.join("public.crt").as_path()
            ),
        ]
    );
    // the TLS vhost's SetEnvIf HTTPS=1 changes nothing (its scheme is https); SSLProtocol
    // allows exactly 1.2 and 1.3
    let ignored: Vec<&str> = plan.ignored.iter().map(|(_, n, _)| n.as_str()).collect();
    assert!(
        !ignored.contains(&"SetEnvIf") && !ignored.contains(&"SSLProtocol"),
        "{ignored:?}"
    );
    assert!(ignored.contains(&"SSLCipherSuite"), "{ignored:?}");

    // one TLS vhost and one plain on the port
    let plain = VHOST;
    let r = root(&format!("{HEAD}{}{plain}", vhost("internal")), &[]);
    let e = refused(&r);
    assert!(
        e.contains("plain HTTP and another on the port is TLS") && e.contains("httpd.conf:14"),
        "{e}"
    );
    // SSLEngine on without a certificate; a missing certificate file
    let r = root(
        &format!(
            "{HEAD}<VirtualHost *:9876>\nSSLEngine on\nWSGIScriptAlias / /usr/bin/octavia-wsgi\n</VirtualHost>\n"
        ),
        &[],
    );
    assert!(refused(&r).contains("without SSLCertificateFile"));
    let r = root(
        &format!(
            "{HEAD}<VirtualHost *:9876>\nSSLCertificateFile /nonexistent.crt\n</VirtualHost>\n"
        ),
        &[],
    );
    assert!(refused(&r).contains("httpd.conf:7: SSLCertificateFile: /nonexistent.crt"));
}

#[test]
fn includes_follow_globs_and_fail_as_apache() {
    // nested wildcard parts, sorted; a directory includes every file under it
    let r = root(
        &format!("{HEAD}Include conf.d/*.vhost\nInclude extra\n"),
        &[
            ("conf.d/b.vhost", "ServerName b\n"),
            ("conf.d/a.vhost", VHOST),
        ],
    );
    std::fs::create_dir_all(r.path().join("extra/sub")).unwrap();
    std::fs::write(r.path().join("extra/sub/x.conf"), "TimeOut 5\n").unwrap();
    let plan = serve(&r);
    let ats: Vec<&str> = plan.ignored.iter().map(|(a, _, _)| a.as_str()).collect();
    assert!(
        ats.iter().any(|a| a.ends_with("extra/sub/x.conf:1")),
        "{ats:?}"
    );
    // Include of a wildcard matching nothing is an error naming the Include's line;
    // IncludeOptional's is not
    let r = root(&format!("{HEAD}{VHOST}Include conf.d/*.none\n"), &[]);
    let e = refused(&r);
    assert!(
        e.contains("httpd.conf:10") && e.contains("No matches for the wildcard '*.none'"),
        "{e}"
    );
    let r = root(
        &format!("{HEAD}{VHOST}IncludeOptional nowhere/*.conf\n"),
        &[],
    );
    serve(&r);
    let r = root(&format!("{HEAD}{VHOST}Include conf.d/missing.conf\n"), &[]);
    assert!(refused(&r).contains("missing.conf"));
    // an Include loop stops at Apache's depth
    let r = root(
        &format!("{HEAD}{VHOST}Include conf.d/loop.conf\n"),
        &[("conf.d/loop.conf", "Include conf.d/loop.conf\n")],
    );
    assert!(refused(&r).contains("nested Includes"));
}

#[test]
fn conditionals_defines_and_variables() {
    let conf = format!(
        "{HEAD}<IfDefine !FOREGROUND>\n Bogus 1\n</IfDefine>\n<IfDefine TLSOFF>\n Bogus 2\n\
         </IfDefine>\nDefine APP /usr/bin/octavia-wsgi\n<IfModule wsgi_module>\n\
         <VirtualHost *:9876>\n WSGIScriptAlias / ${{APP}}\n</VirtualHost>\n</IfModule>\n\
         <IfModule mod_nothing.c>\n Bogus 3\n</IfModule>\n<IfVersion < 2.2>\n Bogus 4\n\
         </IfVersion>\n<IfDirective SSLEngine>\n<IfSection VirtualHost>\nTimeOut 3\n\
         </IfSection>\n</IfDirective>\n"
    );
    let r = root(&conf, &[]);
    let plan = serve(&r);
    assert!(plan.ignored.iter().any(|(_, n, _)| n == "TimeOut"));
    // -D reaches IfDefine
    match run(&r, &["-D", "TLSOFF"]) {
        Err(e) => assert!(e.to_string().contains("httpd.conf:10: Bogus"), "{e}"),
        other => panic!("{other:?}"),
    }
    let r = root(&format!("{HEAD}{VHOST}TimeOut ${{NOPE_UNSET_VAR}}\n"), &[]);
    assert!(refused(&r).contains("${NOPE_UNSET_VAR} is not defined"));
    let r = root(&format!("{HEAD}<IfModule mod_ssl.c>\n{VHOST}"), &[]);
    assert!(refused(&r).contains("not closed"));
}

#[test]
fn refusals_name_file_line_and_directive() {
    for (body, want) in [
        ("Mystery On\n", "httpd.conf:6: Mystery: unknown"),
        (
            "<VirtualHost *:9876>\nWSGIScriptAlias / /usr/share/keystone/keystone.wsgi\n</VirtualHost>\n",
            "httpd.conf:7: WSGIScriptAlias: \"/usr/share/keystone/keystone.wsgi\" is not Octavia",
        ),
        (
            "<VirtualHost *:9876>\nWSGIScriptAlias /lb /usr/bin/octavia-wsgi\n</VirtualHost>\n",
            "Keel serves the API at / only",
        ),
        (
            "<VirtualHost 10.0.0.1:9876>\n</VirtualHost>\n",
            "address-based virtual hosts",
        ),
        (
            "<VirtualHost *:9876>\nRequire ip 10.0.0.0/8\n</VirtualHost>\n",
            "Require: access control",
        ),
        ("Alias /static /var/www\n", "Alias: Keel serves no files"),
        ("Header set X-A b\n", "Header: unknown"),
        ("SSLProtocol -all +TLSv1.3\n", "a narrower set"),
        ("SSLVerifyClient require\n", "client certificate"),
        ("Listen 9876\n", "multiple Listeners"),
        (
            "<VirtualHost *:9876>\n</VirtualHost>\n",
            "httpd.conf:6: port 9876: no WSGIScriptAlias /",
        ),
    ] {
        let r = root(&format!("{HEAD}{body}"), &[]);
        let e = refused(&r);
        assert!(e.contains(want), "{body:?}: {e}");
    }
    // a directive of a module no LoadModule loaded, as Apache's Invalid command
    let r = root(&format!("Listen 9876\n{VHOST}"), &[]);
    assert!(refused(&r).contains("WSGIScriptAlias: Invalid command"));
    // ...judged once every file is read: User before the Include of its LoadModule is fine
    let r = root(&format!("User apache\n{HEAD}{VHOST}"), &[]);
    serve(&r);
    // inside <Directory>: what has no effect anywhere is named, what serves is refused
    let r = root(
        &format!(
            "{HEAD}{VHOST}<Directory /usr/bin>\nRequire all granted\nWSGIProcessGroup x\n</Directory>\n"
        ),
        &[],
    );
    assert!(
        serve(&r)
            .ignored
            .iter()
            .any(|(a, n, _)| n == "WSGIProcessGroup" && a.ends_with(":12"))
    );
    let r = root(
        &format!("{HEAD}{VHOST}<Directory /usr/bin>\nSSLEngine on\n</Directory>\n"),
        &[],
    );
    assert!(refused(&r).contains("httpd.conf:11: SSLEngine: not taken inside <directory>"));
    // a port no VirtualHost and no server-wide alias serves
    let r = root(&format!("{HEAD}Listen 8080\n{VHOST}"), &[]);
    // VHOST is on 9876 only, so 8080 falls to the main server, which serves nothing
    assert!(refused(&r).contains("port 8080"));
}

#[test]
fn command_line() {
    let r = root(&format!("{HEAD}{VHOST}"), &[]);
    let s = |a: &[&str]| {
        parse(
            &a.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            &TEST_BUILD,
        )
    };
    let root_s = r.path().display().to_string();
    // no -DFOREGROUND: Keel would not detach, so it says so
    assert!(
        s(&["-d", &root_s])
            .unwrap_err()
            .to_string()
            .contains("-DFOREGROUND")
    );
    assert!(matches!(
        s(&["-X", "-d", &root_s]).unwrap(),
        Request::Serve(_)
    ));
    assert!(matches!(
        s(&["-t", "-d", &root_s]).unwrap(),
        Request::Print { stderr: true, .. }
    ));
    let f = r.path().join("conf/httpd.conf").display().to_string();
    match s(&["-DFOREGROUND", "-f", &f, "-k", "graceful"]).unwrap() {
        Request::Signal { pidfile, signal } => {
            assert_eq!(pidfile, r.path().join("run/httpd.pid"));
            assert_eq!(signal, "HUP");
        }
        other => panic!("{other:?}"),
    }
    // -C before the files, -c after
    match s(&["-DFOREGROUND", "-d", &root_s, "-c", "TimeOut 9"]).unwrap() {
        Request::Serve(p) => assert!(
            p.ignored
                .iter()
                .any(|(a, n, _)| a == "-c:1" && n == "TimeOut")
        ),
        other => panic!("{other:?}"),
    }
    for bad in [&["-Q"][..], &["-k", "install"], &["stray"], &["-f"]] {
        assert!(matches!(s(bad), Err(HttpdError::Usage(_))), "{bad:?}");
    }
    assert!(matches!(
        s(&["-v"]).unwrap(),
        Request::Print { stderr: false, .. }
    ));
    assert!(
        s(&["-DFOREGROUND", "-f", "/nonexistent/httpd.conf"])
            .unwrap_err()
            .to_string()
            .contains("/nonexistent/httpd.conf")
    );
}

#[test]
fn words_and_lines() {
    let p = Path::new("x");
    assert_eq!(
        conf::words(p, 1, r#"LogFormat "%h \"%r\"" 'a b' c"#).unwrap(),
        ["LogFormat", r#"%h "%r""#, "a b", "c"]
    );
    assert!(conf::words(p, 1, "A \"open").is_err());
    assert!(conf::fnmatch("*.conf", "00-base.conf"));
    assert!(conf::fnmatch("[0-9]*-?.conf", "10-x.conf"));
    assert!(!conf::fnmatch("[!0-9]*", "1a"));
    let r = root(
        &format!(
            "{HEAD}<VirtualHost *:9876>\n  WSGIScriptAlias / \\\n    /usr/bin/octavia-wsgi\n</VirtualHost>\n"
        ),
        &[],
    );
    serve(&r);
}
