//! Range checks of every device and stack parameter (issue 30): a value out of range is refused
//! before the run with one line that names the key, the value given and the range it takes.

use fcsim::device::DeviceConfig;
use fcsim::stack::StackConfig;
use std::collections::BTreeMap;

fn map(kv: &[(&str, &str)]) -> BTreeMap<String, String> {
    kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn device_err(key: &str, value: &str) -> String {
    let e = DeviceConfig::build("gasa", &map(&[(key, value)]), 4096).expect_err(&format!("device.{key}={value} accepted"));
    e.to_string()
}

fn stack_err(kv: &[(&str, &str)]) -> String {
    StackConfig::build(&map(kv)).expect_err(&format!("{kv:?} accepted")).to_string()
}

#[test]
fn every_device_parameter_out_of_range_names_key_value_and_range() {
    // (key, a value out of range, words of the range in the message)
    let cases = [
        ("channels", "0", "a positive integer"),
        ("chips_per_channel", "0", "a positive integer"),
        ("dies", "0", "a positive integer"),
        ("planes", "0", "a positive integer"),
        ("blocks", "0", "a positive integer"),
        ("pages_per_block", "0", "a positive integer"),
        ("op", "7", "(0, 1]"),
        ("op", "1.5", "(0, 1]"),
        ("op", "0", "(0, 1]"),
        ("op", "-0.1", "(0, 1]"),
        ("op", "nan", "(0, 1]"),
        ("gc_threshold", "0.5", "[0, 0.5)"),
        ("gc_threshold", "-0.01", "[0, 0.5)"),
        ("read_us", "-1", ">= 0"),
        ("write_us", "-1", ">= 0"),
        ("erase_us", "inf", ">= 0"),
        ("xfer_us", "-1", ">= 0"),
        ("dram_us", "-1", ">= 0"),
        ("balance_epoch_ms", "0", "> 0"),
        ("fill", "1.5", "[0, 1]"),
        ("fill", "-1", "[0, 1]"),
        ("steady", "-1", ">= 0"),
        ("seed", "-1", "an unsigned integer"),
        ("gc", "lru", "greedy, fifo, cost-benefit"),
        ("placement", "any", "static, dynamic"),
        ("eviction", "later", "sync, parallel, async"),
        ("fill_order", "backwards", "sequential, random"),
        ("reserve", "more", "spare, extra"),
    ];
    for (key, value, range) in cases {
        let e = device_err(key, value);
        // The value as given (NaN spelt as Rust prints it).
        assert!(e.to_lowercase().starts_with(&format!("device.{key}={value}: expected")), "{key}={value}: {e}");
        assert!(e.contains(range), "{key}={value}: '{range}' not in: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

#[test]
fn every_stack_parameter_out_of_range_names_key_value_and_range() {
    let ssd = ("kind", "ssd-cache");
    let back = ("write", "back");
    let dynamic = ("split", "dynamic");
    // (the stack's keys, the message's start, words of the range in it)
    type Case<'a> = (Vec<(&'a str, &'a str)>, &'a str, &'a str);
    let cases: Vec<Case> = vec![
        (vec![("kind", "disk")], "stack.kind=disk", "buffer or ssd-cache"),
        (vec![ssd, ("write", "sideways")], "stack.write=sideways", "around, through or back"),
        (vec![ssd, ("dram", "1")], "stack.dram=1", "[0, 1)"),
        (vec![ssd, ("dram", "-0.5")], "stack.dram=-0.5", "[0, 1)"),
        (vec![ssd, ("disk", "floppy")], "stack.disk=floppy", "flat"),
        (vec![ssd, ("disk_ms", "-5")], "stack.disk_ms=-5", ">= 0"),
        (vec![ssd, ("disks", "0")], "stack.disks=0", "from 1 to"),
        (vec![ssd, ("disks", "2"), ("stripe", "0B")], "stack.stripe=0B", "stripe unit in bytes"),
        (vec![ssd, back, ("split", "1")], "stack.split=1", "(0, 1)"),
        (vec![ssd, back, ("split", "0")], "stack.split=0", "(0, 1)"),
        (vec![ssd, back, dynamic, ("initial", "1.2")], "stack.initial=1.2", "(0, 1)"),
        (vec![ssd, back, dynamic, ("window", "0")], "stack.window=0", "> 0"),
        (vec![ssd, back, dynamic, ("train", "1.5")], "stack.train=1.5", "(0, 1]"),
        (vec![ssd, back, dynamic, ("train", "0")], "stack.train=0", "(0, 1]"),
        (vec![ssd, back, dynamic, ("retrain", "2")], "stack.retrain=2", "[0, 1]"),
        (vec![ssd, back, dynamic, ("mrc", "0")], "stack.mrc=0", "(0, 1]"),
    ];
    for (kv, head, range) in cases {
        let e = stack_err(&kv);
        assert!(e.starts_with(head), "{kv:?}: expected '{head}' first: {e}");
        assert!(e.contains(range), "{kv:?}: '{range}' not in: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
}
