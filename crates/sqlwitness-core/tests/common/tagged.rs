//! The tagged values of the official-verdict data (`["i", 3]`, `["f",
//! "0.1"]`, `["s", "a"]`, `["n", null]`, and LiveSQLBench's decimals,
//! booleans, dates, times, timestamps and hex bytes), shared by the verdict
//! tests: `#[path = "common/tagged.rs"] mod tagged;`.

use serde_json::Value as Json;
use sqlwitness_core::Value;

/// The value `tagged` (`[tag, value]`) stands for.
pub fn value(tagged: &Json) -> Value {
    let v = &tagged[1];
    let text = || v.as_str().expect("text").to_string();
    match tagged[0].as_str().expect("tag") {
        "i" => Value::Int(v.as_i64().expect("int")),
        "f" => Value::Float(v.as_str().expect("float text").parse().expect("float")),
        "d" => Value::Decimal(text()),
        "b" => Value::Bool(v.as_bool().expect("bool")),
        "s" => Value::Text(text()),
        "n" => Value::Null,
        "date" => Value::Date(text()),
        "ts" => Value::Timestamp(text()),
        "time" => Value::Time(text()),
        "x" => {
            let hex = text();
            Value::Bytes(
                (0..hex.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
                    .collect(),
            )
        }
        other => panic!("unknown tag {other}"),
    }
}
