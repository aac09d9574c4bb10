//! The Markdown report: what `reconscope analyze --markdown` writes for a CI
//! job summary or an issue comment. GitHub-flavoured Markdown; every piece
//! of log text is escaped so it can neither break a table nor inject HTML
//! or links.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::analyze::findings::{clock, human_duration};
use crate::analyze::{Analysis, Outcome};
use crate::model::Timestamp;

/// Options for [`markdown`].
#[derive(Clone, Debug, Default)]
pub struct ReportOptions {
    /// Where the app is served; a link to it opens the view of the first finding.
    pub app_url: Option<String>,
}

/// GitHub's job summary allows 1 MiB; stay well under it.
pub const MAX_BYTES: usize = 256 * 1024;

/// Escapes text for a Markdown table cell or paragraph: table pipes, HTML,
/// link and emphasis syntax, and line breaks; long text is cut.
pub fn escape(s: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max_chars) + 8);
    for (n, c) in s.chars().enumerate() {
        if n >= max_chars {
            out.push('…');
            break;
        }
        match c {
            '|' => out.push_str("\\|"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' | '\t' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    // GitHub turns bare URLs into links: a zero-width space after the
    // scheme or `www` keeps them text.
    for (from, to) in [("://", "\u{200b}://"), ("www.", "www\u{200b}.")] {
        if out.contains(from) {
            out = out.replace(from, to);
        }
    }
    out
}

/// The fragment the app reads to restore a view: a time window.
pub fn view_fragment(start: Timestamp, end: Timestamp) -> String {
    format!("#from={}&to={}", start, end)
}

/// Writes the report.
pub fn markdown(a: &Analysis, opts: &ReportOptions) -> String {
    let mut s = String::new();
    let _ = write_report(&mut s, a, opts);
    if s.len() > MAX_BYTES {
        let mut cut = MAX_BYTES;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push_str("\n\n*(report cut to stay under the job-summary size limit)*\n");
    }
    s
}

fn write_report(s: &mut String, a: &Analysis, opts: &ReportOptions) -> std::fmt::Result {
    writeln!(s, "## reconscope")?;
    writeln!(s)?;
    writeln!(
        s,
        "{} reconciles in {} controller instances, {} etcd leader elections, {} findings.",
        a.reconciles.len(),
        a.controllers.len(),
        a.elections.len(),
        a.findings.len()
    )?;
    if let Some(url) = &opts.app_url {
        let (from, to) = match a.findings.first() {
            Some(f) => (f.start, f.end),
            None => {
                let lo = a.reconciles.iter().map(|r| r.start()).min();
                let hi = a.reconciles.iter().map(|r| r.last).max();
                match (lo, hi) {
                    (Some(l), Some(h)) => (l, h),
                    _ => (Timestamp::new(0, 0), Timestamp::new(0, 0)),
                }
            }
        };
        // The URL is the user's own; only its characters that could break
        // the link syntax are encoded.
        let url: String = url.chars().filter(|c| !c.is_whitespace() && !matches!(c, '(' | ')' | '<' | '>' | '"')).collect();
        writeln!(s)?;
        writeln!(s, "[Open the timeline]({url}{}) (drop the same artifact on the page).", view_fragment(from, to))?;
    }

    writeln!(s)?;
    writeln!(s, "### Findings")?;
    writeln!(s)?;
    if a.findings.is_empty() {
        writeln!(s, "None.")?;
    } else {
        writeln!(s, "| kind | object | window (UTC) | finding |")?;
        writeln!(s, "|---|---|---|---|")?;
        for f in a.findings.iter().take(50) {
            writeln!(
                s,
                "| {} | {} | {}–{} | {} |",
                f.kind.as_str(),
                f.object.as_ref().map_or("–".to_string(), |o| escape(&o.to_string(), 120)),
                clock(f.start),
                clock(f.end),
                escape(&f.message, 1200)
            )?;
        }
        if a.findings.len() > 50 {
            writeln!(s, "\n{} more findings are in `analyze --json`.", a.findings.len() - 50)?;
        }
    }

    if !a.dumps.is_empty() {
        write_goroutines(s, a)?;
    }

    writeln!(s)?;
    writeln!(s, "### Slowest reconciles")?;
    writeln!(s)?;
    let mut slow: Vec<usize> = (0..a.reconciles.len()).collect();
    slow.sort_by_key(|&i| (std::cmp::Reverse(a.reconciles[i].last.nanos - a.reconciles[i].start().nanos), i));
    if slow.is_empty() {
        writeln!(s, "None.")?;
    } else {
        writeln!(s, "| duration | controller | object | from (UTC) | outcome | reconcileID |")?;
        writeln!(s, "|---|---|---|---|---|---|")?;
        for &i in slow.iter().take(10) {
            let r = &a.reconciles[i];
            let latent = if r.latent_start.is_some() { " (from its latent start)" } else { "" };
            writeln!(
                s,
                "| {}{} | {} | {} | {} | {} | {} |",
                human_duration(r.last.nanos - r.start().nanos),
                latent,
                escape(&a.controllers[r.controller].name, 80),
                r.object.as_ref().map_or("–".to_string(), |o| escape(&o.to_string(), 120)),
                clock(r.start()),
                outcome_word(r.outcome),
                escape(&r.reconcile_id, 64)
            )?;
        }
    }

    writeln!(s)?;
    writeln!(s, "### etcd leader elections")?;
    writeln!(s)?;
    if a.elections.is_empty() {
        writeln!(s, "None in the input.")?;
    } else {
        writeln!(s, "| cluster | term | from–to (UTC) | leader | previous | leaderless |")?;
        writeln!(s, "|---|---|---|---|---|---|")?;
        for e in a.elections.iter().take(50) {
            writeln!(
                s,
                "| {} | {} | {}–{} | {} | {} | {} |",
                escape(&e.cluster, 80),
                e.term.map_or("–".to_string(), |t| t.to_string()),
                clock(e.start),
                e.end.map_or("open".to_string(), clock),
                e.leader.as_deref().map_or("–".to_string(), |l| escape(l, 40)),
                e.previous_leader.as_deref().map_or("–".to_string(), |l| escape(l, 40)),
                e.leaderless_nanos.map_or("–".to_string(), human_duration)
            )?;
        }
    }

    writeln!(s)?;
    writeln!(s, "### Most frequent reconcile errors")?;
    writeln!(s)?;
    let mut errors: BTreeMap<&str, (usize, Vec<String>)> = BTreeMap::new();
    for r in &a.reconciles {
        if let Some(e) = &r.error {
            let entry = errors.entry(e.as_str()).or_default();
            entry.0 += 1;
            if let Some(o) = &r.object {
                let o = o.to_string();
                if !entry.1.contains(&o) {
                    entry.1.push(o);
                }
            }
        }
    }
    let mut errors: Vec<_> = errors.into_iter().collect();
    errors.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(b.0)));
    if errors.is_empty() {
        writeln!(s, "None.")?;
    } else {
        writeln!(s, "| count | error | objects |")?;
        writeln!(s, "|---|---|---|")?;
        for (msg, (n, objs)) in errors.iter().take(10) {
            let shown: Vec<String> = objs.iter().take(5).map(|o| escape(o, 80)).collect();
            let more = if objs.len() > 5 { format!(" and {} more", objs.len() - 5) } else { String::new() };
            writeln!(s, "| {n} | {} | {}{more} |", escape(msg, 300), shown.join(", "))?;
        }
    }

    writeln!(s)?;
    writeln!(s, "### Reconciles per controller instance")?;
    writeln!(s)?;
    if a.controllers.is_empty() {
        writeln!(s, "None.")?;
    } else {
        writeln!(s, "| controller | workers | reconciles | errors |")?;
        writeln!(s, "|---|---|---|---|")?;
        for (ci, c) in a.controllers.iter().enumerate() {
            let errs = a.reconciles.iter().filter(|r| r.controller == ci && r.outcome == Outcome::Error).count();
            writeln!(s, "| {} | {} ({}) | {} | {} |", escape(&c.name, 80), c.workers, c.workers_source, c.reconciles, errs)?;
        }
    }
    Ok(())
}

/// Each goroutine dump: when, how many goroutines, and its busy workers and
/// longest waits with the call each is blocked in.
fn write_goroutines(s: &mut String, a: &Analysis) -> std::fmt::Result {
    writeln!(s)?;
    writeln!(s, "### Goroutine dumps")?;
    for (di, d) in a.dumps.iter().enumerate().take(10) {
        let when = match (d.time, d.time_source) {
            (Some(t), Some(src)) => format!("taken {t} ({})", src.describe()),
            _ => "time unknown (give it with `--dump-time`)".to_string(),
        };
        writeln!(s)?;
        writeln!(s, "{} line {}: {} goroutines, {when}.", escape(&d.path, 200), d.first_line, d.goroutines)?;
        let mut groups: Vec<&crate::analyze::GoroutineGroup> = a.goroutines.iter().filter(|g| g.dump == di).collect();
        // Busy workers first, then the longest waits; idle workers are
        // waiting for work, not blocked.
        groups.retain(|g| g.role == "busy-worker" || (g.role == "other" && g.max_wait_minutes.is_some_and(|m| m > 0)));
        groups.sort_by_key(|g| (g.role != "busy-worker", std::cmp::Reverse(g.max_wait_minutes), g.group));
        if groups.is_empty() {
            writeln!(s, "No busy controller worker and no long wait in it.")?;
            continue;
        }
        writeln!(s)?;
        writeln!(s, "| goroutines | state | role | controller | blocked in | under | reconcile |")?;
        writeln!(s, "|---|---|---|---|---|---|---|")?;
        for g in groups.iter().take(8) {
            let state = match g.max_wait_minutes {
                Some(m) => format!("{}, {m} minutes", g.state),
                None => g.state.clone(),
            };
            writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} |",
                g.count,
                escape(&state, 60),
                g.role,
                g.controller.map_or("–".to_string(), |c| escape(&a.controllers[c].name, 80)),
                g.blocked_in.as_ref().map_or("–".to_string(), |f| escape(&f.func, 200)),
                g.under.as_ref().map_or("–".to_string(), |f| escape(&f.func, 200)),
                g.reconcile.map_or("–".to_string(), |r| escape(&a.reconciles[r].reconcile_id, 64)),
            )?;
        }
    }
    if a.dumps.len() > 10 {
        writeln!(s, "\n{} more dumps are in `analyze --json`.", a.dumps.len() - 10)?;
    }
    Ok(())
}

fn outcome_word(o: Outcome) -> &'static str {
    match o {
        Outcome::Success => "success",
        Outcome::Requeue => "requeue",
        Outcome::Error => "error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_tables_html_and_links() {
        assert_eq!(escape("a|b <script>alert(1)</script> [x](http://e)", 200), "a\\|b &lt;script&gt;alert(1)&lt;/script&gt; \\[x\\](http\u{200b}://e)");
        assert_eq!(escape("see www.example.com", 200), "see www\u{200b}.example.com");
        assert_eq!(escape("line\nbreak", 200), "line break");
        assert_eq!(escape("abcdef", 3), "abc…");
    }
}
