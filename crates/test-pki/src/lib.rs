//! Test PKI made with the `openssl` CLI, for the integration tests of `ovsdb` and `keel` (a
//! dev-dependency only, never of production code; std only):
//!
//! - [`make_ca`] / [`make_leaf`] / [`make_pki`]: EC P-256 CAs and leaf certificates carrying
//!   only a CN (no subjectAltName), as `ovs-pki` makes them for OVSDB `ssl:` remotes;
//! - [`self_signed`] / [`pkcs12`]: a self-signed `www.example.com` RSA key pair and its PKCS12
//!   bundles, as a user makes a TLS listener's certificate for Barbican.
//!
//! Every function panics with openssl's stderr when a step fails: a test that cannot make its
//! certificates cannot run.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

/// Runs `openssl <args>` in `dir`; its stdout. Panics (naming the arguments and openssl's
/// stderr) when it fails or the CLI is not installed.
pub fn openssl(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("the openssl CLI must be installed");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The key options of every certificate made here: EC P-256, unencrypted.
const EC: [&str; 5] = [
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
];

/// A self-signed CA `<ca>.pem` / `<ca>.key` in `dir`, subject `/CN=<ca>`, valid two days.
pub fn make_ca(dir: &Path, ca: &str) {
    let (key, pem, subj) = (
        format!("{ca}.key"),
        format!("{ca}.pem"),
        format!("/CN={ca}"),
    );
    let mut args = vec!["req", "-x509"];
    args.extend(EC);
    args.extend(["-keyout", &key, "-out", &pem, "-days", "2", "-subj", &subj]);
    openssl(dir, &args);
}

/// `<name>.pem` / `<name>.key` in `dir`, signed by the CA `<ca>.pem` / `<ca>.key` there:
/// subject `/CN=<name> id:keel-test` only (no subjectAltName), for server and client use,
/// valid two days. Writes `ext.cnf` (the extensions) and `<name>.csr` beside them.
pub fn make_leaf(dir: &Path, ca: &str, name: &str) {
    std::fs::write(
        dir.join("ext.cnf"),
        "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\n\
         extendedKeyUsage=serverAuth,clientAuth\n",
    )
    .unwrap();
    let (key, csr, pem, subj) = (
        format!("{name}.key"),
        format!("{name}.csr"),
        format!("{name}.pem"),
        format!("/CN={name} id:keel-test"),
    );
    let mut args = vec!["req"];
    args.extend(EC);
    args.extend(["-keyout", &key, "-out", &csr, "-subj", &subj]);
    openssl(dir, &args);
    let (ca_pem, ca_key) = (format!("{ca}.pem"), format!("{ca}.key"));
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            &csr,
            "-CA",
            &ca_pem,
            "-CAkey",
            &ca_key,
            "-CAcreateserial",
            "-out",
            &pem,
            "-days",
            "2",
            "-extfile",
            "ext.cnf",
        ],
    );
}

/// [`make_ca`] `ca`, then [`make_leaf`] for each of `leaves`.
pub fn make_pki(dir: &Path, ca: &str, leaves: &[&str]) {
    make_ca(dir, ca);
    for name in leaves {
        make_leaf(dir, ca, name);
    }
}

/// `key.pem` and `cert.pem` in `dir`: an RSA 2048 key and its self-signed certificate for
/// `/CN=www.example.com`, valid one day.
pub fn self_signed(dir: &Path) {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=www.example.com",
            "-keyout",
            "key.pem",
            "-out",
            "cert.pem",
        ],
    );
}

/// `<out>` in `dir`: `key.pem` + `cert.pem` (of [`self_signed`]) as a PKCS12 bundle with
/// `password` (empty: a password-less bundle, Octavia's documented form).
pub fn pkcs12(dir: &Path, out: &str, password: &str) {
    let pass = format!("pass:{password}");
    openssl(
        dir,
        &[
            "pkcs12", "-export", "-inkey", "key.pem", "-in", "cert.pem", "-passout", &pass, "-out",
            out,
        ],
    );
}
