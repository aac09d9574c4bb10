//! The timeline panel: its toolbar (rows, zone, zoom, the window typed),
//! the filters, the chart's canvas and its legend.

use reconscope::layout::Grouping;
use reconscope::ui::state::Loaded;
use reconscope::ui::{Action, AppState};
use yew::prelude::*;

use crate::timefmt::Zone;
use crate::ui::Refs;

pub fn view(s: &AppState, l: &Loaded, d: &Callback<Action>, refs: &Refs, zone: Zone) -> Html {
    let a = &l.analysis;
    let grouping = match s.layout.grouping {
        Grouping::ByObject => "Rows: objects",
        Grouping::ByLane => "Rows: worker lanes",
    };
    let zone_label = if zone.local { "Time: local" } else { "Time: UTC" };
    html! {
        <section
            class="timeline"
            data-testid="timeline"
            ref={refs.timeline.clone()}
            data-reconcile-count={a.reconciles.len().to_string()}
            data-election-count={a.elections.len().to_string()}
            data-dump-count={s.timeline.dumps.len().to_string()}
            data-row-count={s.timeline.rows.len().to_string()}
            data-bar-count={s.timeline.bars.len().to_string()}
            data-shown-count={s.shown().unwrap_or(0).to_string()}
        >
            <div class="toolbar">
                <h2>{ "Timeline" }</h2>
                <button type="button" data-testid="grouping" onclick={d.reform(|_| Action::ToggleGrouping)}>{ grouping }</button>
                <button type="button" data-testid="zone" onclick={d.reform(|_| Action::ToggleZone)}>{ zone_label }</button>
                <button type="button" data-testid="reset-zoom" onclick={d.reform(|_| Action::ResetView)}>{ "Reset zoom" }</button>
                { crate::filters::shown_count(s, l) }
                { crate::filters::window(s, d, refs) }
            </div>
            { crate::filters::view(s, l, d) }
            <div class="chart-box">
                <canvas
                    ref={refs.canvas.clone()}
                    tabindex="0"
                    aria-label="Timeline of reconciles: arrow keys move from bar to bar, Enter or Space opens the selected one; Shift+arrows or h/j/k/l pan and scroll, + and − zoom, 0 resets; wheel zooms, drag pans, click a bar to inspect it"
                ></canvas>
                <div class="tooltip hidden" ref={refs.tooltip.clone()} role="tooltip"></div>
            </div>
            <div class="chart-foot">
                <span class="legend">
                    <span class="swatch success"></span>{ "success" }
                    <span class="swatch requeue"></span>{ "requeue" }
                    <span class="swatch error"></span>{ "error" }
                    <span class="swatch unfinished"></span>{ "unfinished (the log ends)" }
                    <span class="swatch latent"></span>{ "before its first line" }
                    <span class="swatch band"></span>{ "etcd election" }
                    <span class="swatch highlight"></span>{ "finding" }
                    <span class="glyph spec">{ "●" }</span>{ "spec update" }
                    <span class="glyph delete">{ "▼" }</span>{ "deletion asked" }
                    <span class="glyph delete">{ "✕" }</span>{ "deleted" }
                    <span class="glyph delete">{ "□" }</span>{ "finalizers left" }
                    <span class="glyph dump">{ "┆" }</span>{ "goroutine dump" }
                </span>
                <span class="help muted">
                    { "Wheel: zoom · drag or Shift+arrows: pan · arrows: bar to bar · Enter: inspect · drag the strip below: move the window · click a controller: fold it" }
                </span>
            </div>
        </section>
    }
}
