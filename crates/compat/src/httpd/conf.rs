//! Apache's configuration files read as httpd 2.4 reads them (server/config.c, util.c
//! `ap_getword_conf`, `ap_cfg_getline`): one directive a line, names case-insensitive, a
//! trailing `\` joining the next line, `#` comment lines, arguments split on white space
//! with `"…"`/`'…'` quoting (a backslash escaping the quote), `${NAME}` replaced from `Define`
//! and the environment, `<Section …>` … `</Section>`. `Include`/`IncludeOptional` are
//! followed where they stand (relative paths under the ServerRoot of that moment; shell
//! wildcards in any path part, matches in byte order; a directory includes every file under
//! it). As core.c's `include_config`: `Include` of a path or a wildcard that matches nothing
//! is an error (`No matches for the wildcard …, failing`), `IncludeOptional` skips it. The
//! conditional sections (`<IfDefine>`, `<IfModule>`, `<IfVersion>`, `<IfFile>`,
//! `<IfDirective>`, `<IfSection>`) are evaluated here and vanish; what is left is a flat
//! list of [`Directive`]s, each with the sections it sits in.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::error::HttpdError;

/// The Apache version Keel answers `<IfVersion>` with (the 2.4 line RHEL 9 ships).
pub const VERSION: (u32, u32, u32) = (2, 4, 62);

/// Apache's own limit on nested `Include`s (`AP_MAX_INCLUDE_DEPTH`).
const MAX_DEPTH: usize = 128;

/// A section a directive sits in: `(name lower-cased, its arguments)`, outermost first.
pub type Section = (String, Vec<String>);

/// One directive with where it was written.
#[derive(Debug, Clone)]
pub struct Directive {
    /// The file it is in.
    pub file: PathBuf,
    /// Its first line (1-based).
    pub line: usize,
    /// The name as written (`SSLEngine`).
    pub name: String,
    /// The arguments, unquoted.
    pub args: Vec<String>,
    /// Enclosing non-conditional sections (`virtualhost`, `location`…), outermost first.
    pub sections: Vec<Section>,
}

impl Directive {
    /// `FILE:LINE`.
    pub fn at(&self) -> String {
        format!("{}:{}", self.file.display(), self.line)
    }
    /// The name lower-cased.
    pub fn key(&self) -> String {
        self.name.to_ascii_lowercase()
    }
}

/// What the reader needs to evaluate the conditional sections and resolve paths.
#[derive(Debug, Clone)]
pub struct Reader {
    /// `-D` names and `Define`d names (with their values, `""` for none).
    pub defines: Vec<(String, String)>,
    /// The ServerRoot, as `-d` or the last `ServerRoot` read.
    pub server_root: PathBuf,
    /// Modules loaded so far, by identifier (`ssl_module`) and source name (`mod_ssl.c`).
    pub modules: BTreeSet<String>,
    /// Directive names (lower-case) `<IfDirective>` finds.
    pub known: fn(&str) -> bool,
    out: Vec<Directive>,
}

/// The modules compiled into RHEL's httpd (`httpd -l`), always loaded.
pub const STATIC_MODULES: &[(&str, &str)] = &[
    ("core_module", "core.c"),
    ("so_module", "mod_so.c"),
    ("http_module", "http_core.c"),
];

fn err(file: &Path, line: usize, why: impl Into<String>) -> HttpdError {
    HttpdError::Config {
        at: format!("{}:{line}", file.display()),
        why: why.into(),
    }
}

impl Reader {
    /// A reader with `-D` names `defines` and ServerRoot `root`.
    pub fn new(defines: &[String], root: &Path, known: fn(&str) -> bool) -> Reader {
        let mut modules = BTreeSet::new();
        for (id, src) in STATIC_MODULES {
            modules.insert((*id).to_string());
            modules.insert((*src).to_string());
        }
        Reader {
            defines: defines.iter().map(|d| (d.clone(), String::new())).collect(),
            server_root: root.to_path_buf(),
            modules,
            known,
            out: Vec::new(),
        }
    }

    /// Reads `file` and everything it includes. Errors name the file and line.
    pub fn read(mut self, file: &Path) -> Result<(Vec<Directive>, Reader), HttpdError> {
        self.read_file(file, 0, &[], None)?;
        let out = std::mem::take(&mut self.out);
        Ok((out, self))
    }

    /// Feeds one `-C`/`-c` directive (the command line's `origin`).
    pub fn feed(&mut self, origin: &str, text: &str) -> Result<(), HttpdError> {
        let lines = vec![(1, text.to_string())];
        self.body(Path::new(origin), &lines, 0, &[], 0)
    }

    /// Takes the directives read so far.
    pub fn take(&mut self) -> Vec<Directive> {
        std::mem::take(&mut self.out)
    }

    /// A path as Apache resolves it: absolute, or under the ServerRoot.
    pub fn resolve(&self, p: &str) -> PathBuf {
        let p = Path::new(p);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.server_root.join(p)
        }
    }

    fn read_file(
        &mut self,
        file: &Path,
        depth: usize,
        sections: &[Section],
        from: Option<(&Path, usize)>,
    ) -> Result<(), HttpdError> {
        let text = std::fs::read_to_string(file).map_err(|e| match from {
            Some((f, l)) => err(f, l, format!("could not open {}: {e}", file.display())),
            None => HttpdError::Usage(format!(
                "could not open configuration file {}: {e}",
                file.display()
            )),
        })?;
        let lines = logical_lines(&text);
        self.body(file, &lines, 0, sections, depth)
    }

    /// Reads `lines[start..]` until the end (or the closing tag of an enclosing section,
    /// which the caller handles); returns through errors only.
    fn body(
        &mut self,
        file: &Path,
        lines: &[(usize, String)],
        start: usize,
        sections: &[Section],
        depth: usize,
    ) -> Result<(), HttpdError> {
        let end = self.block(file, lines, start, sections, depth, None)?;
        if end < lines.len() {
            let (n, l) = &lines[end];
            return Err(err(file, *n, format!("{l:?} without matching <section>")));
        }
        Ok(())
    }

    /// Reads directives from `i` until `</close>` (returned: the index after it) or the end.
    #[allow(
        clippy::too_many_lines,
        reason = "a known exception of clippy.toml's bound"
    )]
    fn block(
        &mut self,
        file: &Path,
        lines: &[(usize, String)],
        mut i: usize,
        sections: &[Section],
        depth: usize,
        close: Option<(&str, usize)>,
    ) -> Result<usize, HttpdError> {
        while i < lines.len() {
            let (n, raw) = &lines[i];
            let n = *n;
            i += 1;
            let line = self.expand(file, n, raw)?;
            if let Some(tag) = line.strip_prefix("</") {
                let name = tag.trim_end_matches('>').trim().to_ascii_lowercase();
                return match close {
                    Some((c, _)) if c == name => Ok(i),
                    Some((c, open)) => Err(err(
                        file,
                        n,
                        format!("</{name}> where </{c}> (opened at line {open}) was expected"),
                    )),
                    None => Err(err(file, n, format!("</{name}> without matching <{name}>"))),
                };
            }
            if let Some(open) = line.strip_prefix('<') {
                let open = open.strip_suffix('>').ok_or_else(|| {
                    err(
                        file,
                        n,
                        format!("<{open}: the section line does not end with >"),
                    )
                })?;
                let words = words(file, n, open)?;
                let Some((name, args)) = words.split_first() else {
                    return Err(err(file, n, "an empty section <>"));
                };
                let lname = name.to_ascii_lowercase();
                if let Some(cond) = self.condition(file, n, &lname, args)? {
                    let sub = if cond {
                        self.block(file, lines, i, sections, depth, Some((&lname, n)))?
                    } else {
                        skip(file, lines, i, &lname, n)?
                    };
                    i = sub;
                    continue;
                }
                let mut inner = sections.to_vec();
                inner.push((lname.clone(), args.to_vec()));
                // the section's own line, so the sorter sees every section it must judge
                self.out.push(Directive {
                    file: file.to_path_buf(),
                    line: n,
                    name: format!("<{name}>"),
                    args: args.to_vec(),
                    sections: sections.to_vec(),
                });
                i = self.block(file, lines, i, &inner, depth, Some((&lname, n)))?;
                continue;
            }
            let words = words(file, n, &line)?;
            let Some((name, args)) = words.split_first() else {
                continue;
            };
            let d = Directive {
                file: file.to_path_buf(),
                line: n,
                name: name.clone(),
                args: args.to_vec(),
                sections: sections.to_vec(),
            };
            match d.key().as_str() {
                "include" | "includeoptional" => {
                    self.include(&d, depth, sections)?;
                    continue;
                }
                "serverroot" => {
                    let [root] = args else {
                        return Err(err(file, n, "ServerRoot takes one argument"));
                    };
                    if !Path::new(root).is_dir() {
                        return Err(err(
                            file,
                            n,
                            format!("ServerRoot must be a valid directory: {root}"),
                        ));
                    }
                    self.server_root = PathBuf::from(root);
                }
                "define" => match args {
                    [k] => self.defines.push((k.clone(), String::new())),
                    [k, v] => self.defines.push((k.clone(), v.clone())),
                    _ => return Err(err(file, n, "Define takes one or two arguments")),
                },
                "undefine" => {
                    let [k] = args else {
                        return Err(err(file, n, "UnDefine takes one argument"));
                    };
                    self.defines.retain(|(d, _)| d != k);
                }
                "loadmodule" => {
                    let [id, _path] = args else {
                        return Err(err(file, n, "LoadModule takes a module name and a file"));
                    };
                    self.modules.insert(id.clone());
                    if let Some(stem) = id.strip_suffix("_module") {
                        self.modules.insert(format!("mod_{stem}.c"));
                    }
                }
                _ => {}
            }
            self.out.push(d);
        }
        match close {
            Some((c, open)) => Err(err(
                file,
                open,
                format!("<{c}> opened here is not closed before the end of the file"),
            )),
            None => Ok(i),
        }
    }

    /// `Some(true|false)` for a conditional section, `None` for any other.
    fn condition(
        &self,
        file: &Path,
        n: usize,
        name: &str,
        args: &[String],
    ) -> Result<Option<bool>, HttpdError> {
        let one = |what: &str| -> Result<(bool, String), HttpdError> {
            match args {
                [a] => Ok(match a.strip_prefix('!') {
                    Some(rest) => (true, rest.to_string()),
                    None => (false, a.clone()),
                }),
                _ => Err(err(file, n, format!("<{name}> takes one {what}"))),
            }
        };
        let held = match name {
            "ifdefine" => {
                let (neg, d) = one("name")?;
                neg ^ self.defines.iter().any(|(k, _)| *k == d)
            }
            "ifmodule" => {
                let (neg, m) = one("module")?;
                neg ^ self.modules.contains(&m)
            }
            "iffile" => {
                let (neg, f) = one("path")?;
                neg ^ self.resolve(&f).exists()
            }
            "ifdirective" => {
                let (neg, d) = one("directive")?;
                neg ^ (self.known)(&d.to_ascii_lowercase())
            }
            "ifsection" => {
                let (neg, s) = one("section")?;
                let s = s.to_ascii_lowercase();
                neg ^ (self.known)(&format!("<{s}>"))
            }
            "ifversion" => {
                if !self.modules.contains("version_module") {
                    return Err(err(
                        file,
                        n,
                        "Invalid command '<IfVersion', perhaps misspelled or defined by a \
                         module not included in the server configuration (LoadModule \
                         version_module)",
                    ));
                }
                if_version(args).ok_or_else(|| {
                    err(
                        file,
                        n,
                        format!(
                            "<IfVersion {}>: not an [!][op] major[.minor[.patch]] Keel reads",
                            args.join(" ")
                        ),
                    )
                })?
            }
            _ => return Ok(None),
        };
        Ok(Some(held))
    }

    fn include(
        &mut self,
        d: &Directive,
        depth: usize,
        sections: &[Section],
    ) -> Result<(), HttpdError> {
        let optional = d.key() == "includeoptional";
        let [pattern] = d.args.as_slice() else {
            return Err(err(&d.file, d.line, format!("{} takes one path", d.name)));
        };
        if depth >= MAX_DEPTH {
            return Err(err(
                &d.file,
                d.line,
                format!("more than {MAX_DEPTH} nested Includes (a loop?)"),
            ));
        }
        let path = self.resolve(pattern);
        let files = match expand_glob(&path) {
            Ok(f) => f,
            Err(why) if optional => {
                tracing::debug!(file = %d.at(), %why, "IncludeOptional matched nothing");
                Vec::new()
            }
            Err(why) => {
                return Err(err(
                    &d.file,
                    d.line,
                    format!("{why} (use IncludeOptional if required)"),
                ));
            }
        };
        for f in files {
            self.read_file(&f, depth + 1, sections, Some((&d.file, d.line)))?;
        }
        Ok(())
    }

    /// `${NAME}` from `Define` (latest first) or the environment. An undefined one is
    /// refused (Apache warns and keeps the text, which no directive here would take).
    fn expand(&self, file: &Path, n: usize, line: &str) -> Result<String, HttpdError> {
        let mut out = String::new();
        let mut rest = line;
        while let Some(at) = rest.find("${") {
            out.push_str(&rest[..at]);
            let tail = &rest[at + 2..];
            let Some(close) = tail.find('}') else {
                out.push_str(&rest[at..]);
                rest = "";
                break;
            };
            let name = &tail[..close];
            let value = self
                .defines
                .iter()
                .rev()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
                .or_else(|| std::env::var(name).ok())
                .ok_or_else(|| {
                    err(
                        file,
                        n,
                        format!("config variable ${{{name}}} is not defined"),
                    )
                })?;
            out.push_str(&value);
            rest = &tail[close + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

/// Skips a false conditional section from `i`: the index after its closing tag.
fn skip(
    file: &Path,
    lines: &[(usize, String)],
    mut i: usize,
    name: &str,
    open: usize,
) -> Result<usize, HttpdError> {
    let mut depth = 0usize;
    while i < lines.len() {
        let l = lines[i].1.as_str();
        i += 1;
        if let Some(tag) = l.strip_prefix("</") {
            if depth == 0 {
                let got = tag.trim_end_matches('>').trim().to_ascii_lowercase();
                if got != name {
                    return Err(err(
                        file,
                        lines[i - 1].0,
                        format!("</{got}> where </{name}> (opened at line {open}) was expected"),
                    ));
                }
                return Ok(i);
            }
            depth -= 1;
        } else if l.starts_with('<') {
            depth += 1;
        }
    }
    Err(err(
        file,
        open,
        format!("<{name}> opened here is not closed before the end of the file"),
    ))
}

/// The file's lines without comments and blank lines, `\`-continuations joined, trimmed;
/// each with its first line number.
fn logical_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (i, raw) in text.lines().enumerate() {
        let l = raw.trim();
        let (n, mut acc) = pending.take().unwrap_or((i + 1, String::new()));
        if acc.is_empty() && (l.is_empty() || l.starts_with('#')) {
            continue;
        }
        if let Some(head) = l.strip_suffix('\\') {
            acc.push_str(head);
            pending = Some((n, acc));
            continue;
        }
        acc.push_str(l);
        out.push((n, acc.trim().to_string()));
    }
    if let Some((n, acc)) = pending
        && !acc.trim().is_empty()
    {
        out.push((n, acc.trim().to_string()));
    }
    out
}

/// `ap_getword_conf`: white-space separated words, `"…"` and `'…'` quoted (a backslash
/// before the quote character keeps it).
pub fn words(file: &Path, n: usize, line: &str) -> Result<Vec<String>, HttpdError> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let Some(&first) = chars.peek() else { break };
        let mut w = String::new();
        if first == '"' || first == '\'' {
            chars.next();
            let mut closed = false;
            while let Some(c) = chars.next() {
                if c == '\\' && chars.peek() == Some(&first) {
                    w.push(first);
                    chars.next();
                } else if c == first {
                    closed = true;
                    break;
                } else {
                    w.push(c);
                }
            }
            if !closed {
                return Err(err(
                    file,
                    n,
                    format!("unterminated {first}-quoted argument"),
                ));
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() {
                    break;
                }
                w.push(c);
                chars.next();
            }
        }
        out.push(w);
    }
    Ok(out)
}

/// `<IfVersion [[!]op] version>` against [`VERSION`]: `=`/`==`, `<`, `<=`, `>`, `>=`
/// (a missing minor or patch is 0 for the comparison… and any for `=`); `None` for a form
/// Keel does not read (the `~` and `/regex/` forms).
fn if_version(args: &[String]) -> Option<bool> {
    let (neg, op, v) = match args {
        [v] => (false, "=", v.as_str()),
        [op, v] => match op.strip_prefix('!') {
            Some(o) => (true, if o.is_empty() { "=" } else { o }, v.as_str()),
            None => (false, op.as_str(), v.as_str()),
        },
        _ => return None,
    };
    let parts: Vec<u32> = v
        .split('.')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    if parts.is_empty() || parts.len() > 3 {
        return None;
    }
    let have = [VERSION.0, VERSION.1, VERSION.2];
    let n = parts.len();
    let cmp = have[..n].cmp(&parts[..]);
    use std::cmp::Ordering::*;
    let r = match op {
        "=" | "==" => cmp == Equal,
        ">" => cmp == Greater,
        ">=" => cmp != Less,
        "<" => cmp == Less,
        "<=" => cmp != Greater,
        _ => return None,
    };
    Some(neg ^ r)
}

fn has_wildcard(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// The files `path` names: itself, every file under it (a directory), or the wildcard's
/// matches. Errors as Apache's: no match, an unreadable directory.
fn expand_glob(path: &Path) -> Result<Vec<PathBuf>, String> {
    let mut bases = vec![PathBuf::from("/")];
    let comps: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    for (i, c) in comps.iter().enumerate() {
        let last = i + 1 == comps.len();
        let mut next = Vec::new();
        for b in &bases {
            if !has_wildcard(c) {
                let p = b.join(c);
                if p.exists() {
                    next.push(p);
                }
                continue;
            }
            let rd = std::fs::read_dir(b)
                .map_err(|e| format!("could not open config directory {}: {e}", b.display()))?;
            let mut names: Vec<String> = rd
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.') && fnmatch(c, n))
                .collect();
            names.sort();
            for nme in names {
                let p = b.join(nme);
                // directory parts match directories; the last part matches files
                if (last && p.is_file()) || (!last && p.is_dir()) {
                    next.push(p);
                }
            }
        }
        if next.is_empty() {
            return Err(if has_wildcard(c) {
                format!(
                    "No matches for the wildcard '{c}' in '{}', failing",
                    bases
                        .first()
                        .map(|b| b.display().to_string())
                        .unwrap_or_default()
                )
            } else {
                format!(
                    "could not open {}: no such file or directory",
                    path.display()
                )
            });
        }
        bases = next;
    }
    let mut files = Vec::new();
    for b in bases {
        if b.is_dir() {
            walk(&b, &mut files).map_err(|e| format!("{}: {e}", b.display()))?;
        } else {
            files.push(b);
        }
    }
    Ok(files)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out)?;
        } else {
            out.push(p);
        }
    }
    Ok(())
}

/// fnmatch(3) without flags: `*`, `?`, `[set]` / `[!set]` with ranges.
pub fn fnmatch(pat: &str, name: &str) -> bool {
    fn m(p: &[char], n: &[char]) -> bool {
        match p.first() {
            None => n.is_empty(),
            Some('*') => (0..=n.len()).any(|k| m(&p[1..], &n[k..])),
            Some('?') => !n.is_empty() && m(&p[1..], &n[1..]),
            Some('[') => {
                let Some(end) = p.iter().skip(2).position(|c| *c == ']').map(|e| e + 2) else {
                    return n.first() == Some(&'[') && m(&p[1..], &n[1..]);
                };
                let Some(&c) = n.first() else { return false };
                let (neg, set) = match p[1] {
                    '!' | '^' => (true, &p[2..end]),
                    _ => (false, &p[1..end]),
                };
                let mut hit = false;
                let mut k = 0;
                while k < set.len() {
                    if k + 2 < set.len() && set[k + 1] == '-' {
                        hit |= set[k] <= c && c <= set[k + 2];
                        k += 3;
                    } else {
                        hit |= set[k] == c;
                        k += 1;
                    }
                }
                hit != neg && m(&p[end + 1..], &n[1..])
            }
            Some(c) => n.first() == Some(c) && m(&p[1..], &n[1..]),
        }
    }
    let p: Vec<char> = pat.chars().collect();
    let n: Vec<char> = name.chars().collect();
    m(&p, &n)
}
