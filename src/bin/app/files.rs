//! The files read, with their formats, spans and notes.

use reconscope::ui::state::Loaded;
use yew::prelude::*;

use crate::timefmt;

pub fn view(l: &Loaded) -> Html {
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
                    <span class="path">{ reconscope::inert::label(&f.path).into_owned() }</span>
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
    let text = reconscope::inert::label(&text).into_owned();
    html! { <li class="note" data-testid="note">{ text }</li> }
}
