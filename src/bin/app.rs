//! reconscope browser UI (Yew, client-side rendering).
//!
//! Built by trunk for `wasm32-unknown-unknown` with the `web` feature
//! (see `Trunk.toml` and `www/index.html`). Everything runs in the tab:
//! files are read locally and nothing is sent anywhere.
//!
//! Content-Security-Policy note: the page forbids inline styles, so never
//! render a `style="..."` attribute here; use classes from `www/style.css`.

#[cfg(target_arch = "wasm32")]
mod ui {
    use web_sys::{DragEvent, Event, FileList, HtmlInputElement};
    use yew::prelude::*;

    /// Names of the files in a `FileList`, in order.
    fn file_names(list: &FileList) -> Vec<String> {
        (0..list.length())
            .filter_map(|i| list.get(i))
            .map(|file| file.name())
            .collect()
    }

    #[function_component(App)]
    pub fn app() -> Html {
        // `ready` flips once the component is in the DOM; the browser tests
        // wait for `data-testid="app-ready"`.
        let ready = use_state(|| false);
        {
            let ready = ready.clone();
            use_effect_with((), move |_| ready.set(true));
        }

        let names = use_state(Vec::<String>::new);
        let dragging = use_state(|| false);

        let on_change = {
            let names = names.clone();
            Callback::from(move |e: Event| {
                let input: HtmlInputElement = e.target_unchecked_into();
                if let Some(list) = input.files() {
                    names.set(file_names(&list));
                }
            })
        };
        let on_drag_over = {
            let dragging = dragging.clone();
            Callback::from(move |e: DragEvent| {
                // Without preventDefault the browser would open the file.
                e.prevent_default();
                dragging.set(true);
            })
        };
        let on_drag_leave = {
            let dragging = dragging.clone();
            Callback::from(move |_: DragEvent| dragging.set(false))
        };
        let on_drop = {
            let names = names.clone();
            let dragging = dragging.clone();
            Callback::from(move |e: DragEvent| {
                e.prevent_default();
                dragging.set(false);
                if let Some(list) = e.data_transfer().and_then(|dt| dt.files()) {
                    names.set(file_names(&list));
                }
            })
        };

        let drop_class = classes!("drop-zone", dragging.then_some("dragging"));
        html! {
            <main class="app" data-testid={ready.then_some("app-ready")}>
                <header>
                    <h1>{ "reconscope" }</h1>
                    <p class="privacy" data-testid="privacy">
                        { "Nothing is uploaded: your files are read in this browser tab and never leave it." }
                    </p>
                </header>
                // The label makes the whole drop zone open the file picker too.
                <label
                    class={drop_class}
                    for="file-input"
                    data-testid="drop-zone"
                    ondragover={on_drag_over}
                    ondragleave={on_drag_leave}
                    ondrop={on_drop}
                >
                    <span class="drop-hint">
                        { "Drop log files or CI artifacts here, or click to choose them." }
                    </span>
                    <input id="file-input" type="file" multiple=true onchange={on_change} />
                </label>
                if !names.is_empty() {
                    <ul class="file-list" data-testid="file-list">
                        { for names.iter().map(|n| html! { <li>{ n }</li> }) }
                    </ul>
                }
            </main>
        }
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {
    yew::Renderer::<ui::App>::new().render();
}

/// The UI only exists in the browser; a native build of this binary (for
/// example `cargo build --all-features`) just says so.
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("`app` is the browser UI: build it with `trunk build` (see Makefile)");
    std::process::exit(2);
}
