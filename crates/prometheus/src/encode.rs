//! The OpenMetrics encoding helpers both collectors (ours in `mod.rs`,
//! upstream's twins in `upstream.rs`) write their families with.

use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric, MetricEncoder};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use std::fmt;
use tranche_metrics::HistogramSnapshot;

/// One metric family: its descriptor, then each labelled series.
pub(crate) fn family<'a>(
    enc: &'a mut DescriptorEncoder,
    name: &'a str,
    help: &str,
    kind: MetricType,
) -> Result<MetricEncoder<'a>, fmt::Error> {
    enc.encode_descriptor(name, help, None, kind)
}

pub(crate) fn gauge(enc: &mut DescriptorEncoder, name: &str, help: &str, v: f64) -> fmt::Result {
    let e = family(enc, name, help, MetricType::Gauge)?;
    ConstGauge::new(v).encode(e)
}

pub(crate) fn counter(enc: &mut DescriptorEncoder, name: &str, help: &str, v: u64) -> fmt::Result {
    let e = family(enc, name, help, MetricType::Counter)?;
    ConstCounter::new(v).encode(e)
}

pub(crate) fn labelled<V>(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    kind: MetricType,
    series: &[(Vec<(&str, String)>, V)],
    write: impl Fn(MetricEncoder<'_>, &V) -> fmt::Result,
) -> fmt::Result {
    let mut e = family(enc, name, help, kind)?;
    for (labels, v) in series {
        let labels: Vec<(&str, &str)> = labels.iter().map(|(k, v)| (*k, v.as_str())).collect();
        write(e.encode_family(&labels)?, v)?;
    }
    Ok(())
}

/// Non-cumulative `(bound, count)` pairs ending with `+Inf`, scaled.
fn histogram_buckets(s: &HistogramSnapshot, scale: f64) -> Vec<(f64, u64)> {
    let mut prev = 0;
    let mut out: Vec<(f64, u64)> = s
        .cumulative
        .iter()
        .map(|(b, c)| {
            let n = c - prev;
            prev = *c;
            (*b as f64 * scale, n)
        })
        .collect();
    out.push((f64::INFINITY, s.count.saturating_sub(prev)));
    out
}

pub(crate) fn encode_histogram(
    e: MetricEncoder<'_>,
    s: &HistogramSnapshot,
    scale: f64,
) -> fmt::Result {
    let mut e = e;
    e.encode_histogram::<prometheus_client::encoding::NoLabelSet>(
        s.sum as f64 * scale,
        s.count,
        &histogram_buckets(s, scale),
        None,
    )
}
