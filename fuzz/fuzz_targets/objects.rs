//! Object dumps (`kubectl get -o yaml|json`): the bytes named as a YAML and
//! as a JSON dump. Reading them never panics; what they give is only what a
//! dump says (every object from the dump, its updates in order, once), and
//! a dump that cannot be read is a note on that file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reconscope::analyze::objects;
use reconscope::parse::{parse_file, ParseOptions};

fuzz_target!(|data: &[u8]| {
    for name in ["objects.yaml", "objects.json"] {
        let f = parse_file(name, data.to_vec(), &ParseOptions::default());
        let is_dump = objects::is_object_dump(&f);
        let mut diags = Vec::new();
        let lifecycles = objects::build(std::slice::from_ref(&f), &[], &[], &mut diags);
        if !is_dump {
            assert!(lifecycles.is_empty() && diags.is_empty(), "{name}: not a dump, yet {lifecycles:?} {diags:?}");
        }
        for d in &diags {
            assert_eq!(d.path, name);
        }
        for o in &lifecycles {
            assert!(o.in_dump, "{name}: {o:?} not from the dump");
            assert!(o.updates.windows(2).all(|w| w[0] < w[1]), "{name}: updates {:?}", o.updates);
            assert!(o.marked_for_deletion.is_none() && o.deleted.is_none(), "{name}: no reconcile logged a deletion");
        }
    }
});
