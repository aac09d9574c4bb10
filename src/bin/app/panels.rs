//! The page's panels around the chart: summary, findings, inspector, files
//! and notes. Log text is always rendered as text nodes, never as HTML.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use reconscope::analyze::{Analysis, Finding, Outcome, Severity};
use reconscope::evidence::EvidenceMeta;
use yew::html::Scope;
use yew::prelude::*;

use crate::timefmt::{self, Zone};
use crate::ui::{App, Inspector, Loaded, Msg};

pub fn summary(l: &Loaded) -> Html {
    let a = &l.analysis;
    let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let text = format!(
        "{} ({}) · {} · {} · {} · read and analyzed in {:.1} s",
        plural(l.files.len(), "log file", "log files"),
        timefmt::bytes(l.input_bytes as f64),
        plural(a.reconciles.len(), "reconcile", "reconciles"),
        plural(a.controllers.len(), "controller instance", "controller instances"),
        plural(a.elections.len(), "etcd election", "etcd elections"),
        l.millis / 1000.0,
    );
    html! { <p class="summary" data-testid="summary">{ text }</p> }
}

/// What a page opened from a link or a `.reconscope` file shows: a slice
/// of which artifact, how much of it, taken when, and that the artifact
/// itself shows everything.
pub fn evidence_banner(m: &EvidenceMeta, zone: Zone) -> Html {
    let what = if m.artifact.is_empty() { "an artifact".to_string() } else { m.artifact.clone() };
    let when = m.taken_at_nanos.map_or(String::new(), |t| {
        let t = t - t.rem_euclid(1_000_000_000);
        format!(", taken {} {}", timefmt::full(t, zone), zone.name(t))
    });
    let text = format!(
        "Evidence from a link: a slice of {what}: {} of its {} lines and {} of its {} reconciles{when} by {}.",
        m.lines, m.total_lines, m.reconciles, m.total_reconciles, m.made_by,
    );
    let left_out = m.left_out.describe();
    html! {
        <section class="evidence-banner" data-testid="evidence-banner" role="note">
            <p>{ text }</p>
            if !left_out.is_empty() {
                <p data-testid="evidence-left-out">{ format!("To fit the link it leaves out {left_out}.") }</p>
            }
            <p class="muted">{ format!("{}. Drop {what} itself on this page to see everything.", capitalise(&m.redacted_words())) }</p>
        </section>
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
}

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Info => "info",
        Severity::Warning => "warning",
        Severity::Error => "error",
    }
}

fn window(f: &Finding, zone: Zone) -> String {
    let (s, e) = (f.start.nanos, f.end.nanos);
    // No finer than its timestamps: an end within its start's tick is an
    // instant.
    match f.duration_text() {
        None => timefmt::clock_auto(s, zone),
        Some(d) => format!("{} → {} ({d})", timefmt::clock_auto(s, zone), timefmt::clock_auto(e, zone)),
    }
}

/// The analysis, compared by identity (it is only ever replaced whole), so
/// that panels built from it render again only when a new load arrives.
#[derive(Clone)]
pub struct Shared(pub Rc<Analysis>);

impl PartialEq for Shared {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

#[derive(Properties, PartialEq)]
pub struct FindingsProps {
    pub analysis: Shared,
    pub focus: Option<u32>,
    pub zone: Zone,
    pub onfocus: Callback<u32>,
    pub oninspect: Callback<u32>,
    /// "Copy link" of a finding: opens the share dialog for it.
    pub onshare: Callback<u32>,
}

/// Findings of one kind shown in full before a "show more" button; the
/// others are in the list as empty hidden items (one element per finding
/// stays true, and a big input's thousands of hot loops stay cheap to
/// draw).
pub const FINDINGS_SHOWN_PER_KIND: usize = 50;

/// The findings panel: a component of its own, so that panning the chart
/// or typing in a filter does not rebuild a list of thousands of items.
#[function_component(Findings)]
pub fn findings(p: &FindingsProps) -> Html {
    let expanded = use_state(BTreeSet::<&'static str>::new);
    let a = &p.analysis.0;
    let mut seen: BTreeMap<&'static str, usize> = BTreeMap::new();
    // The hidden ones as one piece of markup the browser parses at once
    // (thousands of virtual nodes would cost Yew a long task). Only our
    // own kind names go into it, never log text.
    let mut placeholders = String::new();
    let items = a.findings.iter().enumerate().filter_map(|(i, f)| {
        let i = i as u32;
        let kind = f.kind.as_str();
        let n = seen.entry(kind).or_default();
        *n += 1;
        if *n > FINDINGS_SHOWN_PER_KIND && !expanded.contains(kind) {
            placeholders.push_str(&format!("<li class=\"finding\" data-finding-kind=\"{kind}\" data-testid=\"finding\" hidden></li>"));
            return None;
        }
        let class = classes!("finding", format!("sev-{}", severity(f.severity)), (p.focus == Some(i)).then_some("focused"));
        let inspect = f.reconciles.first().map(|&r| {
            let id = a.reconciles.get(r).map(|x| short_id(&x.reconcile_id)).unwrap_or_default();
            let oninspect = p.oninspect.clone();
            let onclick = Callback::from(move |_: MouseEvent| oninspect.emit(r as u32));
            html! {
                <button type="button" class="link" data-testid="inspect-reconcile" data-reconcile={r.to_string()} {onclick}>
                    { format!("Inspect reconcile {id}") }
                </button>
            }
        });
        let onfocus = p.onfocus.clone();
        let onshare = {
            let onshare = p.onshare.clone();
            Callback::from(move |e: MouseEvent| {
                e.stop_propagation();
                onshare.emit(i)
            })
        };
        Some(html! {
            <li {class} data-finding-kind={kind} data-testid="finding" onclick={move |_| onfocus.emit(i)}>
                <div class="finding-head">
                    <span class="kind">{ kind }</span>
                    <span class="severity">{ severity(f.severity) }</span>
                    <time>{ window(f, p.zone) }</time>
                    <button type="button" class="link" title="Zoom the timeline onto this finding">{ "Show on timeline" }</button>
                    { for inspect }
                    <button type="button" class="link" data-testid="copy-finding-link" title="A link that carries this finding's evidence" onclick={onshare}>{ "Copy link" }</button>
                </div>
                <p class="sentence">{ &f.message }</p>
            </li>
        })
    });
    let items: Vec<Html> = items.collect();
    let more = seen.iter().filter(|(k, n)| **n > FINDINGS_SHOWN_PER_KIND && !expanded.contains(**k)).map(|(k, n)| {
        let (kind, expanded) = (*k, expanded.clone());
        let onclick = Callback::from(move |_: MouseEvent| {
            let mut e = (*expanded).clone();
            e.insert(kind);
            expanded.set(e);
        });
        html! {
            <button type="button" class="more" data-testid="more-findings" data-kind={kind} {onclick}>
                { format!("Show {} more {kind} findings", n - FINDINGS_SHOWN_PER_KIND) }
            </button>
        }
    });
    html! {
        <section class="findings" data-testid="findings">
            <h2>{ format!("Findings ({})", a.findings.len()) }</h2>
            if a.findings.is_empty() {
                <p class="muted">{ "No findings: nothing stalled, expired, looped or got stuck in these logs." }</p>
            } else {
                <ol>{ for items }</ol>
                if !placeholders.is_empty() {
                    <ol class="finding-placeholders" hidden=true>{ Html::from_html_unchecked(placeholders.into()) }</ol>
                }
                { for more }
            }
        </section>
    }
}

fn short_id(id: &str) -> String {
    id.chars().take(8).collect()
}

fn outcome(o: Outcome) -> &'static str {
    match o {
        Outcome::Success => "success",
        Outcome::Requeue => "requeue",
        Outcome::Error => "error",
    }
}

pub fn basename(path: &str) -> &str {
    path.rsplit(['/', '!']).next().unwrap_or(path)
}

pub fn inspector(l: &Loaded, i: &Inspector, zone: Zone, link: &Scope<App>) -> Html {
    let a = &l.analysis;
    let Some(r) = a.reconciles.get(i.reconcile as usize) else { return html! {} };
    let controller = a.controllers.get(r.controller).map(|c| c.name.clone()).unwrap_or_default();
    let object = r.object.as_ref().map(|o| o.to_string()).unwrap_or_else(|| "unknown object".into());
    // A reconcile seen on one line has no duration to state.
    let meta = if r.is_one_line() {
        format!("{controller} · {object} · {} · {} · one line", outcome(r.outcome), timefmt::full(r.start().nanos, zone))
    } else {
        format!(
            "{controller} · {object} · {} · {} → {} ({}) · {} line{}",
            outcome(r.outcome),
            timefmt::full(r.start().nanos, zone),
            timefmt::clock_auto(r.last.nanos, zone),
            r.duration_text(),
            r.lines,
            if r.lines == 1 { "" } else { "s" },
        )
    };
    // Previous and next reconcile of the same object (found when asked:
    // one pass, cheaper than an index built for every load).
    let mut sibs: Vec<u32> = match &r.object {
        Some(o) => a
            .reconciles
            .iter()
            .enumerate()
            .filter(|(_, x)| x.object.as_ref().is_some_and(|xo| std::sync::Arc::ptr_eq(xo, o) || xo == o))
            .map(|(k, _)| k as u32)
            .collect(),
        None => Vec::new(),
    };
    sibs.sort_by_key(|&k| (a.reconciles[k as usize].start().nanos, k));
    let pos = sibs.iter().position(|&x| x == i.reconcile);
    let nav = |target: Option<u32>, label: &str, testid: &str| match target {
        Some(t) => {
            let onclick = link.callback(move |_| Msg::Inspect(t));
            html! { <button type="button" class="link" data-testid={testid.to_string()} {onclick}>{ label }</button> }
        }
        None => html! { <button type="button" class="link" data-testid={testid.to_string()} disabled=true>{ label }</button> },
    };
    let prev = pos.and_then(|p| p.checked_sub(1)).and_then(|p| sibs.get(p)).copied();
    let next = pos.and_then(|p| sibs.get(p + 1)).copied();
    let position = match pos {
        Some(p) => format!("{} of {} reconciles of {object}", p + 1, sibs.len()),
        None => String::new(),
    };

    let body = match &i.lines {
        None => html! { <p class="muted">{ "Reading its lines…" }</p> },
        Some(lines) => {
            let blocks = lines.blocks.iter().map(|b| {
                let base = basename(&b.path).to_string();
                let mut prev_line: Option<u32> = None;
                let rows = b.lines.iter().map(|line| {
                    let gap = match prev_line {
                        Some(p) if line.number > p + 1 => {
                            let n = line.number - p - 1;
                            html! { <div class="gap">{ format!("⋯ {n} line{} of other reconciles", if n == 1 { "" } else { "s" }) }</div> }
                        }
                        _ => html! {},
                    };
                    prev_line = Some(line.number);
                    let class = classes!("line", if line.own { "own" } else { "context" });
                    html! {
                        <>
                            { gap }
                            <div {class}>
                                <span class="loc" title={format!("{}:{}", b.path, line.number)}>{ format!("{base}:{}", line.number) }</span>
                                <span class="text">{ &line.text }</span>
                            </div>
                        </>
                    }
                });
                html! {
                    <div class="block">
                        <h3 class="block-path">{ &b.path }</h3>
                        <div class="lines">{ for rows }</div>
                    </div>
                }
            });
            html! {
                <>
                    { for blocks }
                    if lines.left_out_lines > 0 {
                        <p class="muted" data-testid="left-out-lines">
                            { format!("{} of its lines, from its middle, were left out of the link this came from.", lines.left_out_lines) }
                        </p>
                    }
                    if lines.omitted_context > 0 {
                        <p class="muted">{ format!("{} lines without a reconcileID in between were left out.", lines.omitted_context) }</p>
                    }
                </>
            }
        }
    };
    html! {
        <section class="inspector" data-testid="inspector" data-reconcile-id={r.reconcile_id.clone()}>
            <div class="inspector-head">
                <h2>{ "Reconcile " }<code>{ &r.reconcile_id }</code></h2>
                <button type="button" class="link" data-testid="close-inspector" onclick={link.callback(|_| Msg::CloseInspector)}>{ "Close" }</button>
            </div>
            <p class="meta">{ meta }</p>
            if let Some(e) = &r.error {
                <p class="error-text">{ e }</p>
            }
            { stack(a, i.reconcile, zone) }
            <nav class="siblings">
                { nav(prev, "← previous of this object", "prev-reconcile") }
                <span class="muted">{ position }</span>
                { nav(next, "next of this object →", "next-reconcile") }
            </nav>
            { body }
        </section>
    }
}

/// The goroutine a dump showed running this reconcile, when there is one:
/// where it was blocked, and its stack.
fn stack(a: &Analysis, reconcile: u32, zone: Zone) -> Html {
    let Some(g) = a.goroutines.iter().find(|g| g.reconcile == Some(reconcile as usize)) else { return html! {} };
    let Some(d) = a.dumps.get(g.dump) else { return html! {} };
    let when = d.time.map_or("at an unknown time".to_string(), |t| format!("at {}", timefmt::full(t.nanos, zone)));
    let wait = g.max_wait_minutes.map_or(String::new(), |m| format!(", {m} minutes"));
    let blocked = g.blocked_in.as_ref().map_or(String::new(), |f| format!(", blocked in {}", f.func));
    html! {
        <details class="inspector-stack" data-testid="inspector-stack" open=true>
            <summary><h3>{ format!("Goroutine dump {when}: [{}{wait}]{blocked}", g.state) }</h3></summary>
            { crate::goroutines::frames(g) }
        </details>
    }
}

pub fn files(l: &Loaded) -> Html {
    let mut used = vec![false; l.notes.len()];
    let rows = l.files.iter().map(|f| {
        let notes: Vec<&reconscope::web::Note> = l
            .notes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.path == f.path)
            .map(|(k, n)| {
                used[k] = true;
                n
            })
            .collect();
        let formats = f.formats.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ");
        let span = match (&f.first, &f.last) {
            (Some(a), Some(b)) => format!("{a} → {b}"),
            _ => "no timestamps".into(),
        };
        html! {
            <li class="file">
                <div class="file-head">
                    <span class="path">{ &f.path }</span>
                    <span class="muted">
                        { format!("{} · {} records{} · {}", timefmt::bytes(f.bytes as f64), f.records,
                            if f.unparsed > 0 { format!(" ({} unparsed)", f.unparsed) } else { String::new() }, span) }
                    </span>
                </div>
                if !formats.is_empty() {
                    <div class="formats muted">{ formats }</div>
                }
                if !notes.is_empty() {
                    <ul class="notes">
                        { for notes.iter().map(|n| note_item(n)) }
                    </ul>
                }
            </li>
        }
    });
    let rows: Vec<Html> = rows.collect();
    let others: Vec<&reconscope::web::Note> = l.notes.iter().zip(&used).filter(|(_, u)| !**u).map(|(n, _)| n).collect();
    let open = !l.notes.is_empty();
    html! {
        <section class="files" data-testid="files">
            <details {open}>
                <summary>
                    <h2>{ format!("Files ({}) and notes ({})", l.files.len(), l.notes.len()) }</h2>
                </summary>
                <ul class="file-rows">{ for rows }</ul>
                if !others.is_empty() {
                    <h3>{ "Other notes" }</h3>
                    <ul class="notes">{ for others.iter().map(|n| note_item(n)) }</ul>
                }
            </details>
        </section>
    }
}

fn note_item(n: &reconscope::web::Note) -> Html {
    let text = match n.line {
        Some(line) => format!("{}:{line}: {}", n.path, n.message),
        None => format!("{}: {}", n.path, n.message),
    };
    html! { <li class="note" data-testid="note">{ text }</li> }
}
