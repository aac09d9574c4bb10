//! etcd: members grouped into clusters, leader elections per cluster, and
//! etcd client warnings.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use crate::analyze::model::{ClientWarning, Election, RecordRef};
use crate::analyze::reconciles::time_of;
use crate::model::{ParsedFile, Timestamp};

/// One raft event, from any member.
#[derive(Clone, Debug)]
struct Event {
    time: Timestamp,
    member: String,
    kind: Kind,
    term: Option<u64>,
    /// The other member the line names (new leader, lost leader, ...).
    other: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A sign of trouble: lost leader, new election, pre-candidate, candidate, stepped down, no leader.
    Trouble {
        lost: bool,
    },
    /// `is starting a new election at term N`: trouble too; `N` is the
    /// term it leaves, so the election's term is the next sign's (the
    /// candidate's `N+1`, or a pre-candidate's `N`), or `N` if none follows.
    Starting,
    Elected,
    BecameLeader,
    Transfer,
}

fn is_hex_id(s: &str) -> bool {
    (1..=16).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

fn term_after(msg: &str, key: &str) -> Option<u64> {
    let i = msg.find(key)? + key.len();
    msg[i..].trim_start().split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

/// Reads a raft line. Messages may carry a `raft.node: ` or `raft: ` prefix.
fn classify(msg: &str) -> Option<(String, Kind, Option<u64>, Option<String>)> {
    let m = msg.strip_prefix("raft: ").unwrap_or(msg);
    let m = m.strip_prefix("raft.node: ").unwrap_or(m);
    let mut words = m.split_whitespace();
    let subject = words.next()?.to_string();
    if !is_hex_id(&subject) {
        // Server-side messages without a subject id.
        if m.starts_with("leadership transfer starting") {
            return Some((String::new(), Kind::Transfer, None, None));
        }
        return None;
    }
    let rest = &m[subject.len()..];
    let term = term_after(rest, "at term");
    let w: Vec<&str> = rest.split_whitespace().collect();
    if rest.starts_with(" elected leader ") {
        return Some((subject, Kind::Elected, term, w.get(2).map(|s| s.to_string())));
    }
    if rest.starts_with(" changed leader from ") {
        return Some((subject, Kind::Elected, term, w.get(5).map(|s| s.to_string())));
    }
    if rest.starts_with(" lost leader ") {
        return Some((subject, Kind::Trouble { lost: true }, term, w.get(2).map(|s| s.to_string())));
    }
    if rest.starts_with(" became leader at term") {
        return Some((subject.clone(), Kind::BecameLeader, term, Some(subject)));
    }
    if rest.starts_with(" is starting a new election") {
        // `at term N` is the term it leaves: the election is for the next.
        return Some((subject, Kind::Starting, term, None));
    }
    if rest.contains(" received a MsgVote message with higher term from ") {
        // A candidate's vote request (`[term: 6] received a MsgVote message
        // with higher term from X [term: 7]`): an election for its term is
        // under way. (A pre-vote changes no term and may fail: not a sign.)
        let term = rest.rfind("[term: ").and_then(|i| term_after(&rest[i..], "[term:"));
        return Some((subject, Kind::Trouble { lost: false }, term, None));
    }
    if rest.starts_with(" stepped down to follower") {
        // A leader that lost its quorum (`since quorum is not active`):
        // from here the cluster has no leader, and it was the last one.
        return Some((subject.clone(), Kind::Trouble { lost: true }, term, Some(subject)));
    }
    if rest.starts_with(" became pre-candidate") || rest.starts_with(" became candidate") {
        return Some((subject, Kind::Trouble { lost: false }, term, None));
    }
    if rest.starts_with(" no leader at term") {
        return Some((subject, Kind::Trouble { lost: true }, term, None));
    }
    if rest.contains("starts to transfer leadership") {
        return Some((subject, Kind::Transfer, term, None));
    }
    None
}

/// The cluster a member file belongs to, as people are shown it: `etcd
/// <ns>` for the namespace in its path (`namespaces/<ns>/`, `pods/<ns>/`),
/// else the folder it is in (`etcd in logs/`: the folder's name is no
/// cluster's name), else `etcd`.
fn cluster_of(path: &str) -> String {
    for marker in ["namespaces/", "pods/"] {
        if let Some(i) = path.find(marker) {
            let rest = &path[i + marker.len()..];
            if let Some(ns) = rest.split('/').next() {
                if !ns.is_empty() {
                    return format!("etcd {ns}");
                }
            }
        }
    }
    match path.rfind('/') {
        Some(i) => format!("etcd in {}/", &path[..i]),
        None => "etcd".into(),
    }
}

/// Whether a record whose raw message is `raw` may be a raft or etcd
/// client line: the cheap look that picks the records [`analyze`] reads.
pub fn may_matter(raw: &[u8]) -> bool {
    static TERM: LazyLock<memchr::memmem::Finder<'static>> = LazyLock::new(|| memchr::memmem::Finder::new(b" term"));
    // The one raft line of an election with no term in it.
    static STEPPED_DOWN: LazyLock<memchr::memmem::Finder<'static>> = LazyLock::new(|| memchr::memmem::Finder::new(b" stepped down to follower"));
    TERM.find(raw).is_some() || raw.starts_with(b"leadership transfer") || raw == b"retrying of unary invoker failed" || STEPPED_DOWN.find(raw).is_some()
}

/// Finds every cluster's elections and every etcd client warning among
/// `records`: every timed record whose message [`may_matter`], in file
/// order. (The analysis picks them out in its one pass over every record,
/// [`crate::analyze::reconciles::build`]: a pass of its own over a big
/// log's messages cost more than all the rest of this.)
pub fn analyze(files: &[ParsedFile], records: &[RecordRef]) -> (Vec<Election>, Vec<ClientWarning>) {
    let mut by_cluster: BTreeMap<String, Vec<Event>> = BTreeMap::new();
    let mut warnings = Vec::new();
    let clusters: Vec<String> = files.iter().map(|f| cluster_of(&f.path)).collect();
    for &rr in records {
        let f = &files[rr.file as usize];
        let r = &f.records[rr.record as usize];
        let Some(t) = time_of(r) else { continue };
        let msg = f.message(r);
        if msg == "retrying of unary invoker failed" {
            let fields = f.fields(r);
            let field = |key| f.find_field(&fields, key).map(|fl| f.value(fl));
            warnings.push(ClientWarning {
                time: t,
                target: field("target").map(|s| s.into_owned()),
                attempt: field("attempt").and_then(|s| s.parse().ok()),
                error: field("error").map(|s| s.into_owned()),
                record: rr,
            });
            continue;
        }
        if let Some((member, kind, term, other)) = classify(&msg) {
            by_cluster.entry(clusters[rr.file as usize].clone()).or_default().push(Event { time: t, member, kind, term, other });
        }
    }
    let by_cluster = merge_by_members(by_cluster);
    let mut elections = Vec::new();
    for (cluster, mut ev) in by_cluster {
        ev.sort_by_key(|e| e.time);
        elections.extend(windows(&cluster, &ev));
    }
    warnings.sort_by_key(|w| w.time);
    (elections, warnings)
}

/// Path-based clusters that name the same member ids are one cluster
/// (members of one etcd logged from different folders); the merged
/// cluster keeps the first name.
fn merge_by_members(by_cluster: BTreeMap<String, Vec<Event>>) -> BTreeMap<String, Vec<Event>> {
    let names: Vec<String> = by_cluster.keys().cloned().collect();
    let mut parent: Vec<usize> = (0..names.len()).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let mut owner: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, ev) in by_cluster.values().enumerate() {
        for e in ev {
            for id in std::iter::once(e.member.as_str()).chain(e.other.as_deref()).filter(|id| !id.is_empty()) {
                match owner.get(id) {
                    Some(&j) => {
                        let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                        if a != b {
                            parent[a.max(b)] = a.min(b);
                        }
                    }
                    None => {
                        owner.insert(id, i);
                    }
                }
            }
        }
    }
    let mut out: BTreeMap<String, Vec<Event>> = BTreeMap::new();
    let roots: Vec<usize> = (0..names.len()).map(|i| find(&mut parent, i)).collect();
    for (i, (_, ev)) in by_cluster.into_iter().enumerate() {
        out.entry(names[roots[i]].clone()).or_default().extend(ev);
    }
    out
}

/// An election that has just started, with nothing known of its end.
fn opening(cluster: &str, start: Timestamp, previous_leader: Option<String>) -> Election {
    Election { cluster: cluster.to_string(), term: None, start, end: None, leader: None, previous_leader, leaderless_nanos: None, transfers: 0 }
}

/// Walks a cluster's events: a window opens at the first sign of trouble and
/// closes at `elected leader` / `became leader`; followers that log the same
/// new leader right after extend it.
fn windows(cluster: &str, ev: &[Event]) -> Vec<Election> {
    let mut out: Vec<Election> = Vec::new();
    let mut leader: Option<String> = None;
    let mut open: Option<Election> = None;
    let mut lost_at: Option<Timestamp> = None;
    // Followers echo the new leader within this long after it is elected.
    const ECHO_NANOS: i64 = 5_000_000_000;
    // An election with no winner in the logs ends, for its window, at its
    // last sign; trouble this long after is another election.
    const APART_NANOS: i64 = 60_000_000_000;
    let mut last_sign: Option<Timestamp> = None;
    // The open election's term came from a `starting a new election` line.
    let mut starting_term = false;
    for e in ev {
        if let (Some(o), Some(at)) = (open.as_ref(), last_sign) {
            if e.kind != Kind::Elected && e.kind != Kind::BecameLeader && e.time.nanos.saturating_sub(at.nanos) > APART_NANOS {
                let _ = o;
                out.extend(open.take());
                lost_at = None;
            }
        }
        match e.kind {
            Kind::Trouble { .. } | Kind::Starting => {
                let lost = e.kind == Kind::Trouble { lost: true };
                if let Some(last) = out.last_mut() {
                    // An echo of the election just closed (a follower that
                    // only now notices) does not open a new one.
                    if open.is_none()
                        && e.term.is_some()
                        && e.term <= last.term
                        && last.end.is_some_and(|end| e.time.nanos.saturating_sub(end.nanos) <= ECHO_NANOS)
                    {
                        continue;
                    }
                }
                if lost && lost_at.is_none() {
                    lost_at = Some(e.time);
                }
                let o = open.get_or_insert_with(|| opening(cluster, e.time, leader.clone().or_else(|| if lost { e.other.clone() } else { None })));
                if o.previous_leader.is_none() && lost {
                    o.previous_leader = e.other.clone();
                }
                // Until a leader is elected, the term it started at.
                let set = o.term.is_none() || starting_term;
                if set {
                    o.term = e.term;
                }
                starting_term = set && e.kind == Kind::Starting;
                last_sign = Some(e.time);
            }
            Kind::Transfer => {
                // A leadership transfer starts a change of leader too.
                let o = open.get_or_insert_with(|| opening(cluster, e.time, leader.clone()));
                o.transfers += 1;
                last_sign = Some(e.time);
            }
            Kind::Elected | Kind::BecameLeader => {
                let new_leader = e.other.clone().unwrap_or_else(|| e.member.clone());
                if let Some(mut o) = open.take() {
                    o.end = Some(e.time);
                    o.term = e.term;
                    o.leader = Some(new_leader.clone());
                    let from = lost_at.unwrap_or(o.start);
                    o.leaderless_nanos = Some(e.time.nanos.saturating_sub(from.nanos));
                    out.push(o);
                } else {
                    let echo =
                        out.last().is_some_and(|last| last.term == e.term && last.end.is_some_and(|end| e.time.nanos.saturating_sub(end.nanos) <= ECHO_NANOS));
                    let repeat = leader.as_deref() == Some(new_leader.as_str()) && out.last().is_some_and(|l| l.term == e.term);
                    if echo {
                        if let Some(last) = out.last_mut() {
                            last.end = Some(e.time.max(last.end.unwrap_or(e.time)));
                        }
                    } else if !repeat {
                        // A leader elected with no sign of the election
                        // before it in the logs (they begin after it): an
                        // election whose start and leaderless time are
                        // unknown, seen at this line. A follower repeating
                        // the same leader at the same term is not another.
                        let mut o = opening(cluster, e.time, leader.clone());
                        o.end = Some(e.time);
                        o.term = e.term;
                        o.leader = Some(new_leader.clone());
                        out.push(o);
                    }
                }
                lost_at = None;
                leader = Some(new_leader);
            }
        }
    }
    if let Some(o) = open {
        out.push(o);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_raft_lines() {
        let c = classify("raft.node: 8e9e05c52164694d elected leader 91bc3c398fb3c146 at term 8").unwrap();
        assert_eq!((c.0.as_str(), c.1, c.2, c.3.as_deref()), ("8e9e05c52164694d", Kind::Elected, Some(8), Some("91bc3c398fb3c146")));
        let c = classify("91d25258d70ad868 became candidate at term 12281").unwrap();
        assert_eq!(c.1, Kind::Trouble { lost: false });
        // A leader that lost its quorum: leaderless from here, and the
        // leader it was.
        let c = classify("141adac8c067b6dd stepped down to follower since quorum is not active").unwrap();
        assert_eq!((c.1, c.2, c.3.as_deref()), (Kind::Trouble { lost: true }, None, Some("141adac8c067b6dd")));
        assert!(may_matter(b"141adac8c067b6dd stepped down to follower since quorum is not active"));
        // A candidate's vote request: an election for the candidate's term.
        let c = classify("e8a244cec84997e3 [term: 6] received a MsgVote message with higher term from 43c92545ebd24324 [term: 7]").unwrap();
        assert_eq!((c.0.as_str(), c.1, c.2, c.3), ("e8a244cec84997e3", Kind::Trouble { lost: false }, Some(7), None));
        // A pre-vote changes no term and may fail.
        assert!(classify("e8a244cec84997e3 [term: 6] received a MsgPreVote message with higher term from 43c92545ebd24324 [term: 7]").is_none());
        let c = classify("raft: lost leader db1947d17286d85a at term 2");
        assert!(c.is_none(), "old wording names no subject");
        assert!(classify("published local member to cluster through raft").is_none());
        assert_eq!(cluster_of("a.zip!/cozyreport/snapshots/x/namespaces/tenant-root/v1/pod/etcd-0/etcd/current.log"), "etcd tenant-root");
        // A folder's name is no cluster's: said as a folder.
        assert_eq!(cluster_of("etcd/etcd35_zap_json_follower_stepdown_reelection_millis.log"), "etcd in etcd/");
        assert_eq!(cluster_of("member.log"), "etcd");
    }

    fn ev(secs: i64, member: &str, kind: Kind, term: Option<u64>, other: Option<&str>) -> Event {
        Event { time: Timestamp::new(secs * 1_000_000_000, 0), member: member.into(), kind, term, other: other.map(str::to_string) }
    }

    #[test]
    fn windows_report_leaders_leaderless_time_transfers_and_open_elections() {
        let trouble = Kind::Trouble { lost: false };
        let lost = Kind::Trouble { lost: true };
        let events = [
            ev(0, "aa", Kind::Elected, Some(1), Some("aa")),
            ev(10, "aa", Kind::Transfer, Some(1), None),
            ev(11, "bb", lost, Some(1), Some("aa")),
            ev(12, "bb", trouble, Some(2), None),
            ev(14, "bb", Kind::BecameLeader, Some(2), None),
            ev(15, "aa", Kind::Elected, Some(2), Some("bb")),
            ev(100, "bb", trouble, Some(2), None),
        ];
        let w = windows("etcd x", &events);
        assert_eq!(w.len(), 3, "{w:#?}");
        // The logs begin with a leader elected: an election seen at that
        // line, its start and leaderless time unknown.
        let seen = &w[0];
        assert_eq!(
            (seen.term, seen.leader.as_deref(), seen.start.nanos, seen.end.map(|e| e.nanos), seen.leaderless_nanos),
            (Some(1), Some("aa"), 0, Some(0), None)
        );
        let w = &w[1..];
        let first = &w[0];
        assert_eq!((first.term, first.leader.as_deref(), first.previous_leader.as_deref()), (Some(2), Some("bb"), Some("aa")));
        assert_eq!(first.start.nanos, 10_000_000_000, "the transfer starts the change");
        assert_eq!(first.end.map(|e| e.nanos), Some(15_000_000_000), "the follower's echo extends it");
        assert_eq!(first.leaderless_nanos, Some(3_000_000_000));
        assert_eq!((w[0].transfers, w[1].transfers), (1, 0));
        assert_eq!(w[1].end, None, "still open when the logs end");
        assert_eq!(w[1].term, Some(2), "the term it started at, with no winner");
    }

    #[test]
    fn an_election_with_no_winner_has_the_term_its_lines_campaign_for() {
        let term = |events: &[Event]| windows("etcd x", events).iter().map(|e| e.term).collect::<Vec<_>>();
        let cand = Kind::Trouble { lost: false };
        // Candidate: `starting a new election at term 1`, `became candidate at term 2`.
        assert_eq!(term(&[ev(0, "4e", Kind::Starting, Some(1), None), ev(0, "4e", cand, Some(2), None)]), [Some(2)]);
        // Pre-vote: the term stays 5 until a pre-vote is won.
        assert_eq!(term(&[ev(0, "ac", Kind::Starting, Some(5), None), ev(0, "ac", cand, Some(5), None)]), [Some(5)]);
        assert_eq!(term(&[ev(0, "ac", Kind::Starting, Some(5), None)]), [Some(5)]);
        // A leader lost at 12280 first: that is its term, whatever follows.
        assert_eq!(
            term(&[
                ev(0, "91", Kind::Trouble { lost: true }, Some(12280), None),
                ev(1, "91", Kind::Starting, Some(12280), None),
                ev(1, "91", cand, Some(12281), None)
            ]),
            [Some(12280)]
        );
    }

    #[test]
    fn signs_far_apart_with_no_winner_are_separate_elections() {
        // After tests/corpus/etcd/journald_etcd_raft_issue9668.log.
        let lost = Kind::Trouble { lost: true };
        let trouble = Kind::Trouble { lost: false };
        let events = [
            ev(0, "91", lost, Some(12263), Some("91")),
            ev(10_000, "2a", lost, Some(12274), Some("91")),
            ev(10_001, "2a", trouble, Some(12275), None),
            ev(15_000, "91", lost, Some(12280), Some("91")),
            ev(15_001, "91", trouble, Some(12281), None),
        ];
        let w = windows("etcd x", &events);
        let got: Vec<(Option<u64>, i64, Option<Timestamp>)> = w.iter().map(|e| (e.term, e.start.nanos / 1_000_000_000, e.end)).collect();
        assert_eq!(got, [(Some(12263), 0, None), (Some(12274), 10_000, None), (Some(12280), 15_000, None)]);
    }

    #[test]
    fn members_naming_each_other_are_one_cluster() {
        let ev = |member: &str, other: Option<&str>| Event {
            time: Timestamp::new(0, 0),
            member: member.into(),
            kind: Kind::Elected,
            term: Some(2),
            other: other.map(str::to_string),
        };
        let mut m = BTreeMap::new();
        m.insert("etcd a".to_string(), vec![ev("aa", Some("bb"))]);
        m.insert("etcd b".to_string(), vec![ev("bb", Some("bb"))]);
        m.insert("etcd c".to_string(), vec![ev("cc", Some("cc"))]);
        let merged = merge_by_members(m);
        let sizes: Vec<(&str, usize)> = merged.iter().map(|(k, v)| (k.as_str(), v.len())).collect();
        assert_eq!(sizes, [("etcd a", 2), ("etcd c", 1)]);
    }
}
