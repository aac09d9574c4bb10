//! The findings: one line each (kind, object, duration, window) with its
//! actions, the sentence folded under it until the headline is clicked.
//! A component of its own, so that panning the chart or typing in a
//! filter does not rebuild a list of thousands of items.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use reconscope::analyze::{Analysis, Finding, FindingKind, Severity};
use reconscope::ui::Action;
use reconscope::words::plural;
use yew::prelude::*;

use crate::timefmt::{self, Zone};

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
    pub dispatch: Callback<Action>,
}

/// Findings of one kind shown before a "show more" button; the others are
/// in the list as empty hidden items (one element per finding stays true,
/// and a big input's thousands of hot loops stay cheap to draw).
pub const FINDINGS_SHOWN_PER_KIND: usize = 50;

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Info => "info",
        Severity::Warning => "warning",
        Severity::Error => "error",
    }
}

/// What the finding is about: its object, else its controller.
fn subject(a: &Analysis, f: &Finding) -> Option<String> {
    match (&f.object, f.controller) {
        (Some(o), _) => Some(reconscope::inert::label(&o.to_string()).into_owned()),
        (None, Some(c)) => a.controllers.get(c).filter(|c| c.is_named()).map(|c| reconscope::inert::label(&c.name).into_owned()),
        (None, None) => None,
    }
}

/// Its duration (no finer than its timestamps) and window: "20m 3s ·
/// 16:35:10 → 16:55:13", or "at 16:55:13" for an instant. An election
/// overlap's window is its stall's, so its length is not stated.
fn when(f: &Finding, zone: Zone) -> String {
    let (s, e) = (f.start.nanos, f.end.nanos);
    match f.duration_text() {
        None => format!("at {}", timefmt::clock_auto(s, zone)),
        Some(_) if f.kind == FindingKind::ElectionOverlap => format!("{} → {}", timefmt::clock_auto(s, zone), timefmt::clock_auto(e, zone)),
        Some(d) => format!("{d} · {} → {}", timefmt::clock_auto(s, zone), timefmt::clock_auto(e, zone)),
    }
}

#[function_component(Findings)]
pub fn findings(p: &FindingsProps) -> Html {
    let expanded = use_state(BTreeSet::<&'static str>::new);
    let open = use_state(BTreeSet::<u32>::new);
    let a = &p.analysis.0;
    let mut seen: BTreeMap<&'static str, usize> = BTreeMap::new();
    // The hidden ones as one piece of markup the browser parses at once
    // (thousands of virtual nodes would cost Yew a long task). Only our own
    // kind names go into it, never log text.
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
        let is_open = open.contains(&i);
        let class = classes!("finding", format!("sev-{}", severity(f.severity)), (p.focus == Some(i)).then_some("focused"), is_open.then_some("open"));
        let d = p.dispatch.clone();
        let inspect = f.reconciles.first().map(|&r| {
            let id = a.reconciles.get(r).map(|x| reconscope::inert::label(&x.reconcile_id).chars().take(8).collect::<String>()).unwrap_or_default();
            let d = d.clone();
            let onclick = Callback::from(move |e: MouseEvent| {
                e.stop_propagation();
                d.emit(Action::Inspect(r as u32))
            });
            html! {
                <button type="button" class="link" data-testid="inspect-reconcile" data-reconcile={r.to_string()} {onclick}>
                    { format!("Inspect {id}") }
                </button>
            }
        });
        let show = {
            let d = d.clone();
            Callback::from(move |e: MouseEvent| {
                e.stop_propagation();
                d.emit(Action::Focus(i))
            })
        };
        let share = {
            let d = d.clone();
            Callback::from(move |e: MouseEvent| {
                e.stop_propagation();
                d.emit(Action::ShareFinding(i))
            })
        };
        // The headline unfolds the sentence and shows the finding.
        let toggle = {
            let (open, d) = (open.clone(), d.clone());
            Callback::from(move |e: MouseEvent| {
                e.stop_propagation();
                let mut o = (*open).clone();
                if !o.remove(&i) {
                    o.insert(i);
                }
                open.set(o);
                d.emit(Action::Focus(i));
            })
        };
        let focus = Callback::from(move |_: MouseEvent| d.emit(Action::Focus(i)));
        let subject = subject(a, f);
        let sentence_id = format!("finding-sentence-{i}");
        Some(html! {
            <li {class} data-finding-kind={kind} data-testid="finding" onclick={focus}>
                <div class="finding-head">
                    <button type="button" class="headline" data-testid="finding-headline" aria-expanded={is_open.to_string()}
                        aria-controls={sentence_id.clone()} title="Show the finding in full" onclick={toggle}>
                        <span class="fold" aria-hidden="true">{ if is_open { "▾" } else { "▸" } }</span>
                        <span class="kind">{ kind }</span>
                        if let Some(o) = &subject {
                            <span class="subject" title={o.clone()}>{ o }</span>
                        }
                        <time>{ when(f, p.zone) }</time>
                    </button>
                    <span class="finding-actions">
                        <button type="button" class="link" data-testid="show-on-timeline" title="Zoom the timeline onto this finding" onclick={show}>
                            { "Show on timeline" }
                        </button>
                        { for inspect }
                        <button type="button" class="link" data-testid="copy-finding-link" title="A link that carries this finding's evidence" onclick={share}>
                            { "Copy link" }
                        </button>
                    </span>
                </div>
                <p class="sentence" id={sentence_id} hidden={!is_open}>{ reconscope::inert::label(&f.message).into_owned() }</p>
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
                { format!("Show {}", plural(n - FINDINGS_SHOWN_PER_KIND, &format!("more {kind} finding"), &format!("more {kind} findings"))) }
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
