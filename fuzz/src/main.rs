//! The libFuzzer driver of the fuzz targets (`make fuzz`). The target is named by the
//! environment variable `FCSIM_FUZZ_TARGET` (libFuzzer owns the command line); see `lib.rs` for
//! what each target checks.

#![no_main]
// `fuzz_target!` exports the C entry points libFuzzer calls (`#[no_mangle]`).
#![allow(unsafe_code)]

use fcsim_fuzz::Target;
use std::sync::OnceLock;

static TARGET: OnceLock<Target> = OnceLock::new();

libfuzzer_sys::fuzz_target!(init: {
    let name = std::env::var("FCSIM_FUZZ_TARGET").unwrap_or_default();
    let Some(target) = Target::by_name(&name) else {
        let names: Vec<&str> = Target::all().iter().map(Target::name).collect();
        eprintln!("FCSIM_FUZZ_TARGET='{name}' names no target; one of: {}", names.join(", "));
        std::process::exit(2);
    };
    let _ = TARGET.set(target);
}, |data: &[u8]| {
    if let Some(t) = TARGET.get() {
        t.run(data);
    }
});
