//! Redaction: what is removed from log text before it leaves the page (an
//! evidence link or file, the Markdown report, a picture). On by default.
//!
//! Removed: private keys, JWTs, `Authorization`/bearer headers, cloud and
//! service access keys and tokens (AWS, GCP, GitHub, GitLab, Slack,
//! Kubernetes bootstrap tokens), credentials inside URLs, and the values of
//! keys named like secrets (`password`, `token`, `client_secret`, ...), in
//! JSON, logfmt/klog (`key=value`, `key="value"`), YAML (`key: value`) and
//! command-line flags (`--password=...`). With [`RedactOptions::mask_hosts`],
//! IP addresses and host names too.
//!
//! Never removed: reconcileIDs, UUIDs, timestamps and object names. A
//! value that is a UUID or a timestamp is kept whatever its key, and keys
//! that name objects (`name`, `namespace`, `secretName`, the kind key
//! `Secret`, ...) are not secret keys.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

/// What to remove beyond the secrets (which are always removed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RedactOptions {
    /// Also mask IP addresses and host names.
    pub mask_hosts: bool,
}

/// The kinds of text removed, as named in replacements (`[redacted:jwt]`)
/// and in counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    PrivateKey,
    Jwt,
    Authorization,
    AccessKey,
    Token,
    UrlCredentials,
    SecretValue,
    Ip,
    Host,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::PrivateKey => "private-key",
            Kind::Jwt => "jwt",
            Kind::Authorization => "authorization",
            Kind::AccessKey => "access-key",
            Kind::Token => "token",
            Kind::UrlCredentials => "url-credentials",
            Kind::SecretValue => "secret-value",
            Kind::Ip => "ip",
            Kind::Host => "host",
        }
    }

    /// What a person reads in a preview: `n` of this kind
    /// (`1 JWT`, `2 JWTs`).
    pub fn counted(self, n: u64) -> String {
        let (one, many) = match self {
            Kind::PrivateKey => ("private key", "private keys"),
            Kind::Jwt => ("JWT", "JWTs"),
            Kind::Authorization => ("Authorization header or bearer token", "Authorization headers and bearer tokens"),
            Kind::AccessKey => ("cloud access key", "cloud access keys"),
            Kind::Token => ("API token", "API tokens"),
            Kind::UrlCredentials => ("credential in a URL", "credentials in URLs"),
            Kind::SecretValue => ("value of a key named like a secret", "values of keys named like secrets"),
            Kind::Ip => ("IP address", "IP addresses"),
            Kind::Host => ("host name", "host names"),
        };
        crate::words::plural(n, one, many)
    }

    fn replacement(self) -> &'static str {
        match self {
            Kind::PrivateKey => "[redacted:private-key]",
            Kind::Jwt => "[redacted:jwt]",
            Kind::Authorization => "[redacted:authorization]",
            Kind::AccessKey => "[redacted:access-key]",
            Kind::Token => "[redacted:token]",
            Kind::UrlCredentials => "[redacted:url-credentials]",
            Kind::SecretValue => "[redacted:secret]",
            Kind::Ip => "[ip]",
            Kind::Host => "[host]",
        }
    }
}

struct Rule {
    kind: Kind,
    re: Regex,
    /// The capture group replaced (0: the whole match).
    group: usize,
    /// Only with `mask_hosts`.
    hosts: bool,
    /// What a text must hold for the pattern to match (checked first: the
    /// regex engine here has no literal prefilter of its own, and most log
    /// lines hold no secret).
    pre: Pre,
}

/// A necessary condition for a rule's match, cheaper than the regex.
#[derive(Clone, Copy)]
enum Pre {
    /// No cheap condition.
    None,
    /// One of these, as written.
    Any(&'static [&'static str]),
    /// One of these, in any case (lowercase here).
    AnyFolded(&'static [&'static str]),
    /// All of these, as written.
    All(&'static [&'static str]),
    /// Six lowercase letters or digits, a dot, sixteen more (a kubeadm token).
    BootstrapToken,
}

impl Pre {
    fn holds(self, text: &str, folded: &mut Option<String>) -> bool {
        match self {
            Pre::None => true,
            Pre::Any(lits) => lits.iter().any(|l| text.contains(l)),
            Pre::All(lits) => lits.iter().all(|l| text.contains(l)),
            // (Unicode case folding can match what ASCII folding does not:
            // `ſ` is an `s`, the Kelvin sign a `k`.)
            Pre::AnyFolded(_) if !text.is_ascii() => true,
            Pre::AnyFolded(lits) => {
                let f = folded.get_or_insert_with(|| text.to_ascii_lowercase());
                lits.iter().any(|l| f.contains(l))
            }
            Pre::BootstrapToken => {
                let b = text.as_bytes();
                let tok = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
                memchr::memchr_iter(b'.', b).any(|i| i >= 6 && b[i - 6..i].iter().all(tok) && b.get(i + 1..i + 17).is_some_and(|t| t.iter().all(tok)))
            }
        }
    }
}

fn rule(kind: Kind, pattern: &str, group: usize, pre: Pre) -> Rule {
    Rule { kind, re: Regex::new(pattern).expect("redaction pattern"), group, hosts: false, pre }
}

/// The words one of which every [`SECRET_KEY`] holds, folded.
const SECRET_WORDS: &[&str] = &["pass", "secret", "token", "key", "credential", "pwd"];

/// Key names that mark a secret value (matched against the whole key,
/// case-insensitively, after the exclusions below).
const SECRET_KEY: &str = r"(?:[A-Za-z0-9_.-]*(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?|auth[_-]?key|session[_-]?key|client[_-]?key|signing[_-]?key|pwd)[A-Za-z0-9_.-]*)";

/// The rules, in order. Their word boundaries are ASCII's (`(?-u:\b)`):
/// a letter of another script beside a secret (`密钥AKIA…`) does not hide
/// it, and the regex crate's DFAs, which give up on a Unicode `\b` in
/// text that is not all ASCII, do not leave such text to its slowest
/// engine (natively; the wasm has only that one, see Cargo.toml).
static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    let mut rules = vec![
        // A PEM private key, to its END line or the end of the text.
        rule(Kind::PrivateKey, r"(?s)-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|\z)", 0, Pre::Any(&["-----BEGIN"])),
        rule(Kind::Jwt, r"(?-u:\b)eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*", 0, Pre::Any(&["eyJ"])),
        // `Authorization: Bearer x`, `"authorization":"Basic x"`, `authorization=x`.
        rule(
            Kind::Authorization,
            r#"(?i)(?-u:\b)(?:proxy-)?authorization\\?"?\s*[:=]\s*\\?"?((?:(?:bearer|basic|token|digest|negotiate)\s+)?[^\s"\\,;}]+)"#,
            1,
            Pre::AnyFolded(&["authorization"]),
        ),
        rule(Kind::Authorization, r"(?i)(?-u:\b)bearer\s+([A-Za-z0-9._~+/=-]{8,})", 1, Pre::AnyFolded(&["bearer"])),
        // AWS access key ids, GCP API keys.
        rule(
            Kind::AccessKey,
            r"(?-u:\b)(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}(?-u:\b)",
            0,
            Pre::Any(&["AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA"]),
        ),
        rule(Kind::AccessKey, r"(?-u:\b)AIza[0-9A-Za-z_-]{35}(?-u:\b)", 0, Pre::Any(&["AIza"])),
        // Azure storage connection strings.
        rule(Kind::AccessKey, r"(?i)(?-u:\b)AccountKey=([^;\s]+)", 1, Pre::AnyFolded(&["accountkey="])),
        // GitHub, GitLab, Slack, npm tokens; Kubernetes bootstrap tokens.
        rule(Kind::Token, r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})(?-u:\b)", 0, Pre::Any(&["gh", "github_pat_"])),
        rule(Kind::Token, r"(?-u:\b)glpat-[A-Za-z0-9_-]{20,}(?-u:\b)", 0, Pre::Any(&["glpat-"])),
        rule(Kind::Token, r"(?-u:\b)xox[abposr]-[A-Za-z0-9-]{10,}(?-u:\b)", 0, Pre::Any(&["xox"])),
        rule(Kind::Token, r"(?-u:\b)npm_[A-Za-z0-9]{36}(?-u:\b)", 0, Pre::Any(&["npm_"])),
        rule(Kind::Token, r"(?-u:\b)[a-z0-9]{6}\.[a-z0-9]{16}(?-u:\b)", 0, Pre::BootstrapToken),
        // scheme://user:password@host: the userinfo.
        rule(Kind::UrlCredentials, r"(?i)(?-u:\b)[a-z][a-z0-9+.-]*://([^\s/@:\x22']+:[^\s/@\x22']*)@", 1, Pre::All(&["://", "@"])),
        // "key": "value" / \"key\":\"value\" (JSON, also escaped inside JSON).
        rule(Kind::SecretValue, &format!(r#"(?i)\\?"{SECRET_KEY}\\?"\s*:\s*\\?"((?:[^"\\]|\\[^"])*)\\?""#), 1, Pre::AnyFolded(SECRET_WORDS)),
        // key=value, key="value", --key=value, key: value.
        rule(Kind::SecretValue, &format!(r#"(?i)(?:^|[^A-Za-z0-9_.-])-{{0,2}}{SECRET_KEY}\s*=\s*"((?:[^"\\]|\\.)*)""#), 1, Pre::AnyFolded(SECRET_WORDS)),
        rule(Kind::SecretValue, &format!(r#"(?i)(?:^|[^A-Za-z0-9_.-])-{{0,2}}{SECRET_KEY}\s*=\s*([^\s"'`,;&)}}]+)"#), 1, Pre::AnyFolded(SECRET_WORDS)),
        rule(Kind::SecretValue, &format!(r#"(?i)(?:^|\s){SECRET_KEY}:\s+([^\s"',;{{}}\[\]]+)"#), 1, Pre::AnyFolded(SECRET_WORDS)),
    ];
    let mut host = |kind, pattern: &str| rules.push(Rule { kind, re: Regex::new(pattern).expect("redaction pattern"), group: 0, hosts: true, pre: Pre::None });
    host(Kind::Ip, r"(?-u:\b)(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(?:\.(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}(?-u:\b)");
    host(
        Kind::Ip,
        r"(?i)(?-u:\b)(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}(?-u:\b)|(?i)(?-u:\b)(?:[0-9a-f]{1,4}:){1,6}:(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){0,5})?(?-u:\b)",
    );
    // Dotted host names ending in a letter label: not Go import paths
    // (`go.etcd.io/etcd`, followed by `/`), file names (`x.log`), or
    // versions.
    host(
        Kind::Host,
        r"(?i)(?-u:\b)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:com|net|org|io|dev|cloud|local|localdomain|internal|lan|svc|cluster\.local|corp|example|test|app|co|info|biz|us|eu|de|uk|fr|cn|ru|jp)(?-u:\b)",
    );
    rules
});

/// Values kept whatever key they sit under.
static KEEP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d{4}-\d{2}-\d{2}[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?|true|false|null|\[redacted:[a-z-]+\]|)$")
        .expect("keep pattern")
});

/// Keys that look secret by name but name objects or ids.
static NOT_SECRET_KEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)^-*\\?"?(?:secret|secrets|.*(?:name|names|ref|refs|namespace|kind|id|ids|uid|type|path|file|count|expir\w*|ttl|duration|timeout|age|length|len|size|version|hash|sha|resource\w*))\\?"?$"#).expect("key pattern")
});

/// Removes secrets from text, counting what it removed.
#[derive(Debug, Default)]
pub struct Redactor {
    pub opts: RedactOptions,
    counts: BTreeMap<Kind, u64>,
}

impl Redactor {
    pub fn new(opts: RedactOptions) -> Redactor {
        Redactor { opts, counts: BTreeMap::new() }
    }

    /// How many of each kind were removed so far.
    pub fn counts(&self) -> &BTreeMap<Kind, u64> {
        &self.counts
    }

    /// `text` with what is secret replaced by `[redacted:KIND]` (`[ip]`,
    /// `[host]` when masking hosts). Borrowed when nothing was removed.
    pub fn redact<'a>(&mut self, text: &'a str) -> Cow<'a, str> {
        let mut out: Cow<'a, str> = Cow::Borrowed(text);
        // The text in lowercase, made once when a rule asks (and again
        // after a replacement changes the text).
        let mut folded: Option<String> = None;
        for rule in RULES.iter() {
            if rule.hosts && !self.opts.mask_hosts {
                continue;
            }
            if !rule.pre.holds(&out, &mut folded) || !rule.re.is_match(&out) {
                continue;
            }
            let mut n = 0u64;
            let replaced = replace(&rule.re, rule.group, &out, rule.kind, &mut n);
            if n > 0 {
                *self.counts.entry(rule.kind).or_default() += n;
                out = Cow::Owned(replaced);
                folded = None;
            }
        }
        out
    }
}

/// Whether `text` holds a replacement this module writes.
pub fn is_redacted(text: &str) -> bool {
    text.contains("[redacted:") || text.contains("[ip]") || text.contains("[host]")
}

impl Redactor {
    /// Redacts Markdown everywhere but in link targets (`](…)`), which are
    /// the report's own links (an evidence payload is already redacted and
    /// must stay intact).
    pub fn redact_markdown(&mut self, md: &str) -> String {
        let mut out = String::with_capacity(md.len());
        let mut rest = md;
        while let Some(at) = rest.find("](") {
            let target = &rest[at + 2..];
            let end = target.find(')').map_or(rest.len(), |e| at + 2 + e + 1);
            let own =
                (target.starts_with("https://") || target.starts_with("http://") || target.starts_with('#')) && !rest[at..end].contains(char::is_whitespace);
            if !own {
                out.push_str(&self.redact(&rest[..at + 2]));
                rest = &rest[at + 2..];
                continue;
            }
            out.push_str(&self.redact(&rest[..at]));
            out.push_str(&rest[at..end]);
            rest = &rest[end..];
        }
        out.push_str(&self.redact(rest));
        out
    }
}

/// Replaces group `group` of every match of `re` in `text`, unless the
/// value is one that is always kept or the key is not a secret key.
fn replace(re: &Regex, group: usize, text: &str, kind: Kind, n: &mut u64) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for caps in re.captures_iter(text) {
        let (Some(whole), Some(m)) = (caps.get(0), caps.get(group)) else {
            continue;
        };
        if m.start() < at {
            continue;
        }
        let value = m.as_str();
        if kind == Kind::SecretValue || kind == Kind::Token {
            if KEEP.is_match(value) {
                continue;
            }
            if kind == Kind::SecretValue {
                // The key is the text of the match before the value.
                let key = whole.as_str()[..m.start() - whole.start()]
                    .trim_end_matches(|c: char| c == '"' || c == '\\' || c == ':' || c == '=' || c.is_whitespace())
                    .trim_start_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '"' && c != '\\');
                if NOT_SECRET_KEY.is_match(key) {
                    continue;
                }
            }
        }
        if kind == Kind::Host && is_kept_host(text, m.start(), m.end()) {
            continue;
        }
        out.push_str(&text[at..m.start()]);
        out.push_str(kind.replacement());
        at = m.end();
        *n += 1;
    }
    out.push_str(&text[at..]);
    out
}

/// A dotted name that is a Go import path or package-qualified name, not a
/// host: followed by `/` or `.` and an identifier, or preceded by `/`.
fn is_kept_host(text: &str, start: usize, end: usize) -> bool {
    let after = &text[end..];
    let before = &text[..start];
    after.starts_with('/') || before.ends_with('/') && !before.ends_with("//") || after.starts_with('(')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Redacts `input` and compares with `expect`, and the kinds counted.
    fn check(opts: RedactOptions, input: &str, expect: &str, kinds: &[Kind]) {
        let mut r = Redactor::new(opts);
        let got = r.redact(input);
        assert_eq!(got, expect, "redacting {input:?}");
        let counted: Vec<Kind> = r.counts().keys().copied().collect();
        assert_eq!(counted, kinds, "kinds counted for {input:?}");
    }

    fn secrets(input: &str, expect: &str, kinds: &[Kind]) {
        check(RedactOptions::default(), input, expect, kinds)
    }

    #[test]
    fn the_cheap_look_first_never_lets_a_secret_through() {
        // Unicode case folding reads `ſ` as `s` and the Kelvin sign as `k`:
        // a key written so is still a secret's.
        secrets("paſsword=hunter2 done", "paſsword=[redacted:secret] done", &[Kind::SecretValue]);
        secrets("api\u{212a}ey=abc123 done", "api\u{212a}ey=[redacted:secret] done", &[Kind::SecretValue]);
        // A kubeadm token anywhere on a line, and none in a plain one.
        secrets("join --token abcdef.0123456789abcdef x", "join --token [redacted:token] x", &[Kind::Token]);
        secrets("reconciled ns/tcp-1 in 1.5s", "reconciled ns/tcp-1 in 1.5s", &[]);
    }

    #[test]
    fn each_kind_of_secret_is_removed() {
        use Kind::*;
        secrets("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY----- done", "[redacted:private-key] done", &[PrivateKey]);
        secrets(r#"{"key":"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg"}"#, r#"{"key":"[redacted:private-key]"#, &[PrivateKey]);
        secrets("token eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiJzeXN0ZW0ifQ.c2lnbmF0dXJl used", "token [redacted:jwt] used", &[Jwt]);
        secrets("Authorization: Bearer abc.def-123456", "Authorization: [redacted:authorization]", &[Authorization]);
        secrets(r#"{"Authorization":"Basic dXNlcjpwYXNz"}"#, r#"{"Authorization":"[redacted:authorization]"}"#, &[Authorization]);
        secrets("curl -H 'bearer 0123456789abcdef'", "curl -H 'bearer [redacted:authorization]'", &[Authorization]);
        secrets("key AKIAIOSFODNN7EXAMPLE in use", "key [redacted:access-key] in use", &[AccessKey]);
        secrets("gcp AIzaSyA-1234567890abcdefghijklmnopqrstu ok", "gcp [redacted:access-key] ok", &[AccessKey]);
        secrets(
            "DefaultEndpointsProtocol=https;AccountKey=abc+def==;EndpointSuffix",
            "DefaultEndpointsProtocol=https;AccountKey=[redacted:access-key];EndpointSuffix",
            &[AccessKey],
        );
        secrets("push with ghp_0123456789abcdefghijklmnopqrstuvwxyz", "push with [redacted:token]", &[Token]);
        secrets("glpat-abcdefghijklmnopqrst12", "[redacted:token]", &[Token]);
        secrets("slack xoxb-1234567890-abcdefghij", "slack [redacted:token]", &[Token]);
        secrets("kubeadm join --token abcdef.0123456789abcdef", "kubeadm join --token [redacted:token]", &[Token]);
        secrets("dial postgres://admin:hunter2@db.example:5432/x", "dial postgres://[redacted:url-credentials]@db.example:5432/x", &[UrlCredentials]);
        secrets(r#"{"password":"hunter2","user":"bob"}"#, r#"{"password":"[redacted:secret]","user":"bob"}"#, &[SecretValue]);
        secrets(r#"{\"clientSecret\":\"s3cr3t\"}"#, r#"{\"clientSecret\":\"[redacted:secret]\"}"#, &[SecretValue]);
        secrets(r#"msg="login" password="p a s s" user=bob"#, r#"msg="login" password="[redacted:secret]" user=bob"#, &[SecretValue]);
        secrets("starting --db-password=hunter2 --port=80", "starting --db-password=[redacted:secret] --port=80", &[SecretValue]);
        secrets("  token: abc123def\n", "  token: [redacted:secret]\n", &[SecretValue]);
    }

    #[test]
    fn a_letter_of_another_script_beside_a_secret_does_not_hide_it() {
        use Kind::*;
        secrets("密钥AKIAIOSFODNN7EXAMPLE已轮换", "密钥[redacted:access-key]已轮换", &[AccessKey]);
        secrets("ключghp_0123456789abcdefghijklmnopqrstuvwxyz", "ключ[redacted:token]", &[Token]);
        secrets("令牌abcdef.0123456789abcdef", "令牌[redacted:token]", &[Token]);
        check(RedactOptions { mask_hosts: true }, "地址10.96.0.12和etcd.example", "地址[ip]和[host]", &[Ip, Host]);
        // Inside a longer ASCII word, still no match.
        secrets("xAKIAIOSFODNN7EXAMPLEx", "xAKIAIOSFODNN7EXAMPLEx", &[]);
    }

    #[test]
    fn ids_times_and_object_names_are_kept() {
        let kept = [
            r#"{"level":"info","ts":"2026-05-26T16:29:30.123Z","msg":"Reconciling","controller":"secret","controllerKind":"Secret","Secret":{"name":"kubernetes-test-admin-token","namespace":"tenant-test"},"namespace":"tenant-test","name":"kubernetes-test-admin-token","reconcileID":"c853721a-23af-4ffb-917c-6c12cb41287c"}"#,
            r#"{"secretName":"etcd-root-client-certs","tokenID":"c853721a-23af-4ffb-917c-6c12cb41287c","passwordExpiresAt":"2026-05-26T16:29:30Z"}"#,
            r#"I0526 16:29:30.123456       1 controller.go:42] "Reconciling" controller="secret" Secret="tenant-test/admin-token" reconcileID="19e80ab0-1cfa-4899-8593-2f0a0dc27014""#,
            "the secret tenant-test/admin-token was updated",
            "go.etcd.io/etcd/client/v3.(*authClient).UserGet",
            "timed out waiting for the condition: tokenTTL=30s",
        ];
        for line in kept {
            secrets(line, line, &[]);
        }
    }

    #[test]
    fn markdown_keeps_its_own_links_whole() {
        let mut r = Redactor::default();
        let md = "see [evidence](https://h/app/#ev=AKIAIOSFODNN7EXAMPLEx_eyJ) and `password=hunter2` [x](not a link password=p)";
        assert_eq!(
            r.redact_markdown(md),
            "see [evidence](https://h/app/#ev=AKIAIOSFODNN7EXAMPLEx_eyJ) and `password=[redacted:secret]` [x](not a link password=[redacted:secret])"
        );
    }

    #[test]
    fn hosts_and_ips_only_when_asked() {
        let line = "dial tcp 10.96.0.12:2379 and etcd-0.etcd.tenant-root.svc:2379, fe80::1ff:fe23:4567:890a; go.etcd.io/etcd/client/v3.New";
        secrets(line, line, &[]);
        check(RedactOptions { mask_hosts: true }, line, "dial tcp [ip]:2379 and [host]:2379, [ip]; go.etcd.io/etcd/client/v3.New", &[Kind::Ip, Kind::Host]);
        // Timestamps and UUIDs are not IPv6 addresses or hosts.
        let kept = r#"{"ts":"2026-05-26T16:29:30.123Z","reconcileID":"c853721a-23af-4ffb-917c-6c12cb41287c","file":"kamaji-controller.log"}"#;
        check(RedactOptions { mask_hosts: true }, kept, kept, &[]);
    }
}
