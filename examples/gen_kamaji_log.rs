//! Writes a realistic generated kamaji manager log (tests/support/gen.rs):
//! `cargo run --release --example gen_kamaji_log -- OUT.log [MIB] [SEED]`.
//! Used to time `reconscope stats` against `reconscope analyze`.

#[path = "../tests/support/gen.rs"]
mod gen;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(out) = args.first() else {
        eprintln!("usage: gen_kamaji_log OUT.log [MIB] [SEED]");
        std::process::exit(2);
    };
    let mib: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(256);
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(0x6b61_6d61_6a69);
    std::fs::write(out, gen::kamaji_log(mib << 20, seed))
}
