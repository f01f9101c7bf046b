//! `bitlens`: query, inspect and serve Redis snapshots (see README).
fn main() {
    eprintln!("bitlens: not built yet");
    std::process::exit(2);
}
