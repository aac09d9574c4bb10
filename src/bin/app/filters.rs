//! The filters, in one row above the chart: text (every line of a
//! reconcile, in the worker), level, controller, object, "longer than";
//! and the window typed as RFC3339, in the toolbar. Filtering never moves
//! the window.

use reconscope::ui::state::Loaded;
use reconscope::ui::{Action, AppState, FilterChange};
use web_sys::{Event, HtmlInputElement, HtmlSelectElement, InputEvent};
use yew::prelude::*;
use yew::TargetCast;

use crate::ui::Refs;

pub fn view(s: &AppState, l: &Loaded, d: &Callback<Action>) -> Html {
    let a = &l.analysis;
    let f = &s.filters;
    let text = |c: fn(String) -> FilterChange| d.reform(move |e: InputEvent| Action::Filter(c(e.target_unchecked_into::<HtmlInputElement>().value())));
    let on_level = d.reform(|e: Event| Action::Filter(FilterChange::Level(e.target_unchecked_into::<HtmlSelectElement>().value().parse().unwrap_or(0))));
    let on_controller = d.reform(|e: Event| Action::Filter(FilterChange::Controller(e.target_unchecked_into::<HtmlSelectElement>().value())));
    let levels = [(0u8, "any level"), (1, "info and above"), (2, "warn and above"), (3, "error and above")];
    html! {
        <section class="filters" data-testid="filters" aria-label="Filters">
            <label class="filter grow">
                <span>{ "Text" }</span>
                <input type="search" data-testid="filter-message" placeholder="messages, errors, fields, lines: text or regex"
                    class={classes!(s.filter_error.is_some().then_some("invalid"))}
                    value={f.pattern.clone()} oninput={text(FilterChange::Text)} />
            </label>
            <label class="filter">
                <span>{ "Level" }</span>
                <select data-testid="filter-level" onchange={on_level}>
                    { for levels.iter().map(|(v, t)| html! {
                        <option value={v.to_string()} selected={f.min_level == *v}>{ *t }</option>
                    }) }
                </select>
            </label>
            <label class="filter">
                <span>{ "Controller" }</span>
                <select data-testid="filter-controller" onchange={on_controller}>
                    <option value="" selected={f.controller.is_empty()}>{ "all" }</option>
                    { for a.controllers.iter().map(|c| html! {
                        <option value={c.id.clone()} selected={f.controller == c.id}>
                            { if c.is_named() { reconscope::inert::label(&c.name).into_owned() } else { "unknown controller".to_string() } }
                        </option>
                    }) }
                </select>
            </label>
            <label class="filter">
                <span>{ "Object" }</span>
                <input type="search" data-testid="filter-object" placeholder="namespace/name"
                    value={f.object.clone()} oninput={text(FilterChange::Object)} />
            </label>
            <label class="filter short">
                <span>{ "Longer than" }</span>
                <input type="search" data-testid="filter-longer" placeholder="30s, 2m, 500ms"
                    class={classes!(s.duration_error.is_some().then_some("invalid"))}
                    value={f.longer_than.clone()} oninput={text(FilterChange::LongerThan)} />
            </label>
            if let Some(e) = &s.filter_error {
                <p class="filter-error" data-testid="filter-error" role="alert">
                    { format!("Invalid regular expression, nothing is filtered: {e}") }
                </p>
            }
            if let Some(e) = &s.duration_error {
                <p class="filter-error" data-testid="duration-error" role="alert">
                    { format!("Not a duration, nothing is filtered by it: {e}") }
                </p>
            }
        </section>
    }
}

/// The window typed as RFC3339 (the chart's own window shows in it while
/// neither field is being edited).
pub fn window(s: &AppState, d: &Callback<Action>, refs: &Refs) -> Html {
    let window = {
        let (from, to) = (refs.from.clone(), refs.to.clone());
        d.reform(move |_: Event| {
            let v = |r: &NodeRef| r.cast::<HtmlInputElement>().map(|i| i.value()).unwrap_or_default();
            Action::FilterWindow { from: v(&from), to: v(&to) }
        })
    };
    html! {
        <span class="window-fields">
            <label class="filter time">
                <span>{ "From (UTC)" }</span>
                <input type="text" data-testid="filter-from" ref={refs.from.clone()} onchange={window.clone()} />
            </label>
            <label class="filter time">
                <span>{ "To (UTC)" }</span>
                <input type="text" data-testid="filter-to" ref={refs.to.clone()} onchange={window} />
            </label>
            if let Some(e) = &s.window_error {
                <p class="filter-error" data-testid="window-error" role="alert">{ e }</p>
            }
        </span>
    }
}

/// "N of M reconciles shown", announced as filters change it.
pub fn shown_count(s: &AppState, l: &Loaded) -> Html {
    let total = l.analysis.reconciles.len();
    let shown = s.shown().unwrap_or(total);
    html! {
        <span class="shown-count muted" data-testid="shown-count" aria-live="polite">
            { format!("{shown} of {total} reconciles shown") }
        </span>
    }
}
