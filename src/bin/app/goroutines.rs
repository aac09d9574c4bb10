//! The goroutine panel: every goroutine dump in the input, its stacks
//! grouped (blocked workers and the longest waits first), with a text
//! filter and a "workers only" switch. A group that was running a
//! reconcile links to it in the inspector.

use reconscope::analyze::{Analysis, GoroutineGroup};
use reconscope::words::plural;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::findings::Shared;
use crate::timefmt::{self, Zone};

#[derive(Properties, PartialEq)]
pub struct GoroutinesProps {
    pub analysis: Shared,
    pub zone: Zone,
    pub oninspect: Callback<u32>,
    /// The time a person gives for dumps nothing else dates (UTC ns).
    pub ondumptime: Callback<i64>,
}

/// Groups drawn before a "show all" button.
const SHOWN: usize = 40;

#[function_component(Goroutines)]
pub fn goroutines(p: &GoroutinesProps) -> Html {
    let filter = use_state(String::new);
    let workers_only = use_state(|| false);
    let show_all = use_state(|| false);
    let a: &Analysis = &p.analysis.0;
    if a.dumps.is_empty() {
        return html! {};
    }
    let needle = filter.to_lowercase();
    let matches = |g: &GoroutineGroup| {
        (!*workers_only || g.role != "other")
            && (needle.is_empty()
                || g.state.to_lowercase().contains(&needle)
                || g.frames.iter().any(|f| f.func.to_lowercase().contains(&needle) || f.file.to_lowercase().contains(&needle)))
    };
    // Busy workers first, then the longest waits, then the biggest groups.
    let mut order: Vec<usize> = (0..a.goroutines.len()).filter(|&i| matches(&a.goroutines[i])).collect();
    order.sort_by_key(|&i| {
        let g = &a.goroutines[i];
        (g.role != "busy-worker", std::cmp::Reverse(g.max_wait_minutes), std::cmp::Reverse(g.count), g.dump, g.group)
    });
    let total = order.len();
    if !*show_all {
        order.truncate(SHOWN);
    }
    let time_error = use_state(|| None::<String>);
    let time_ref = use_node_ref();
    let undated = a.dumps.iter().any(|d| d.time.is_none());
    let onusetime = {
        let (time_ref, time_error, ondumptime) = (time_ref.clone(), time_error.clone(), p.ondumptime.clone());
        Callback::from(move |_: MouseEvent| {
            let text = time_ref.cast::<HtmlInputElement>().map(|i| i.value()).unwrap_or_default();
            match reconscope::time::parse_rfc3339(text.trim().as_bytes(), true, 0) {
                Some(t) => {
                    time_error.set(None);
                    ondumptime.emit(t.ts.nanos);
                }
                None => time_error.set(Some("Write the time as RFC3339, e.g. 2026-05-26T16:45:00Z.".into())),
            }
        })
    };
    let dumps = a.dumps.iter().map(|d| {
        let when = match (d.time, d.time_source) {
            (Some(t), Some(src)) => format!("taken {} ({})", timefmt::full(t.nanos, p.zone), src.describe()),
            _ => "time unknown: nothing dates it (no wrapper time, no time in its file name, no archive time, no log lines around it)".to_string(),
        };
        html! {
            <li class="dump" data-testid="dump">
                <span class="path">{ format!("{}:{}", reconscope::inert::label(&d.path), d.first_line) }</span>
                <span class="muted">{ format!(" · {} · {when}", plural(d.goroutines, "goroutine", "goroutines")) }</span>
                { for d.notes.iter().take(5).map(|n| html! { <div class="note muted">{ reconscope::inert::label(n).into_owned() }</div> }) }
            </li>
        }
    });
    let groups = order.iter().map(|&i| {
        let g = &a.goroutines[i];
        let wait = match (g.min_wait_minutes, g.max_wait_minutes) {
            (Some(lo), Some(hi)) if lo != hi => format!(", {lo}–{hi} minutes"),
            (_, Some(m)) => format!(", {}", plural(m, "minute", "minutes")),
            _ => String::new(),
        };
        let controller = g.controller.and_then(|c| a.controllers.get(c)).map(|c| format!(" · {}", c.name)).unwrap_or_default();
        let blocked = g.call.as_ref().map(|f| format!(" · in {}", f.func)).unwrap_or_default();
        // Names from the dump and the logs, shown as text is everywhere.
        let head = reconscope::inert::label(&format!("{} × [{}{wait}] · {}{controller}{blocked}", g.count, g.state, g.role)).into_owned();
        let since = g.blocked_since_at_most.map(|t| {
            format!(
                "Blocked since {} or earlier (Go counts the wait from the first garbage collection that saw it: up to about 2 minutes late).",
                timefmt::full(t.nanos, p.zone)
            )
        });
        let inspect = g.reconcile.map(|r| {
            let oninspect = p.oninspect.clone();
            let id: String = a.reconciles.get(r).map(|x| reconscope::inert::label(&x.reconcile_id).chars().take(8).collect()).unwrap_or_default();
            html! {
                <button type="button" class="link" data-testid="goroutine-inspect" onclick={move |_| oninspect.emit(r as u32)}>
                    { format!("Inspect the reconcile it was running ({id})") }
                </button>
            }
        });
        html! {
            <li class={classes!("goroutine-group", g.role.clone())} data-testid="goroutine-group" data-role={g.role.clone()}>
                <details open={g.finding.is_some()}>
                    <summary>{ head }</summary>
                    if let Some(s) = since { <p class="muted">{ s }</p> }
                    { for inspect }
                    { frames(g) }
                </details>
            </li>
        }
    });
    let onfilter = {
        let filter = filter.clone();
        Callback::from(move |e: InputEvent| filter.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let onworkers = {
        let workers_only = workers_only.clone();
        Callback::from(move |e: Event| workers_only.set(e.target_unchecked_into::<HtmlInputElement>().checked()))
    };
    let onshowall = {
        let show_all = show_all.clone();
        Callback::from(move |_: MouseEvent| show_all.set(true))
    };
    html! {
        <section class="goroutines" data-testid="goroutines">
            <h2>{ reconscope::ui::goroutines_heading(a.dumps.len(), a.goroutines.len()) }</h2>
            <ul class="dumps">{ for dumps }</ul>
            if undated {
                <div class="dump-time">
                    <label class="filter">
                        <span>{ "When were the undated dumps taken? (UTC)" }</span>
                        <input type="text" data-testid="dump-time" placeholder="2026-05-26T16:45:00Z" ref={time_ref} />
                    </label>
                    <button type="button" data-testid="use-dump-time" onclick={onusetime}>{ "Use this time" }</button>
                    if let Some(e) = &*time_error {
                        <p class="filter-error" role="alert" data-testid="dump-time-error">{ e }</p>
                    }
                </div>
            }
            <div class="goroutine-filters">
                <label class="filter">
                    <span>{ "Function, file or state" }</span>
                    <input type="search" data-testid="goroutine-filter" placeholder="substring" value={(*filter).clone()} oninput={onfilter} />
                </label>
                <label class="check">
                    <input type="checkbox" data-testid="goroutine-workers" checked={*workers_only} onchange={onworkers} />
                    { " controller workers only" }
                </label>
                <span class="muted" data-testid="goroutine-count">{ format!("{total} of {} groups", a.goroutines.len()) }</span>
            </div>
            <ol class="goroutine-groups">{ for groups }</ol>
            if total > SHOWN && !*show_all {
                <button type="button" class="more" onclick={onshowall}>{ format!("Show all {total} groups") }</button>
            }
        </section>
    }
}

/// A group's stack, innermost first, its blocked-in frame marked, and the
/// goroutine that created it (also in the inspector).
pub fn frames(g: &GoroutineGroup) -> Html {
    html! {
        <ol class="frames">
            { for g.frames.iter().map(|f| {
                let own = g.call.as_ref().is_some_and(|b| b.func == f.func && b.line == f.line);
                html! {
                    <li class={classes!(own.then_some("blocked-frame"))}>
                        <span class="func">{ reconscope::inert::label(&f.func).into_owned() }</span>
                        <span class="loc muted">{ format!("{}:{}", reconscope::inert::label(&f.file), f.line) }</span>
                    </li>
                }
            }) }
            if let Some(c) = &g.created_by {
                <li class="muted">{ format!("created by {}", reconscope::inert::label(c)) }</li>
            }
        </ol>
    }
}
