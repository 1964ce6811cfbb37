//! This machine as a one-node cluster, from what its tools print.
//!
//! Pure parsing: the facade crate runs the tools and reads the files, and hands their text
//! here. Three outputs are read:
//!
//! * `nvidia-smi --query-gpu=index,name,uuid,memory.total --format=csv,noheader,nounits`
//!   ([`NVIDIA_SMI_ARGS`]): one GPU per line, four comma-separated fields,
//!   `0, NVIDIA H100 80GB HBM3, GPU-5e1c…, 81559` (memory in MiB, or `[N/A]`).
//! * `npu-smi info -l` ([`NPU_SMI_ARGS`]): `KEY : VALUE` lines, any spacing, a blank line
//!   between cards; an optional `Total Count : N`, then per card `NPU ID : N` first, then
//!   keys such as `Product Name`, `Serial Number` and `Chip Count : N` (1 when absent).
//!   Other keys are ignored.
//! * `/proc/meminfo`: `KEY:   VALUE kB` lines; `MemTotal` and `MemAvailable` (or
//!   `MemFree` on kernels older than 3.14) are read.
//!
//! Mapping ([`local_inventory`]), as close to what Ray's autodetection declares on the
//! node as the outputs allow: `CPU` = the CPU count the caller gives (Ray: the OS CPU
//! count); `GPU` = the GPUs nvidia-smi lists, at most as many as `CUDA_VISIBLE_DEVICES`
//! names when it is set (Ray: the same `min`; empty or `NoDevFiles` means none); `NPU` =
//! the Ascend chips (the sum of `Chip Count`, one `/dev/davinciN` each), at most as many as
//! `ASCEND_RT_VISIBLE_DEVICES` names; `memory` = `MemTotal` as the total and
//! `MemAvailable` as what is free, in bytes. Ray's own `memory` resource is smaller (about
//! 70 % of the memory available when the raylet starts: the object store takes 30 %), and
//! Ray also declares `accelerator_type:…` and `object_store_memory`, which are not
//! declared here. The GPU name becomes the label `gpu_product` and the NPU product name
//! `npu_product`, when all cards share one. The node is alive: the machine is probed from
//! itself (the [`Inventory`] contract has no dead node to report here).

use super::{Inventory, InventoryNote};
use resource_pool_core::model::{Amount, Cluster, Node, Resources, names};

/// The arguments `nvidia-smi` is run with.
pub const NVIDIA_SMI_ARGS: &[&str] = &[
    "--query-gpu=index,name,uuid,memory.total",
    "--format=csv,noheader,nounits",
];

/// The arguments `npu-smi` is run with.
pub const NPU_SMI_ARGS: &[&str] = &["info", "-l"];

/// Why a tool's output does not read as what the tool prints.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum LocalError {
    /// A line of nvidia-smi's CSV that is not a GPU.
    #[error("nvidia-smi printed something that is not a GPU: {detail}")]
    #[diagnostic(
        code(resource_pool::local::nvidia_smi),
        help(
            "expected one GPU per line, `INDEX, NAME, UUID, MEMORY_MIB`, as `nvidia-smi --query-gpu=index,name,uuid,memory.total --format=csv,noheader,nounits` prints; run it yourself to see what your driver prints"
        )
    )]
    NvidiaSmi {
        /// What is wrong.
        detail: String,
        /// The bad line or field.
        #[label("{detail}")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
    /// A line of `npu-smi info -l` that is not a card's field.
    #[error("npu-smi printed something that is not a card list: {detail}")]
    #[diagnostic(
        code(resource_pool::local::npu_smi),
        help(
            "expected `KEY : VALUE` lines (`NPU ID : 0`, `Chip Count : 1`) as `npu-smi info -l` prints; run it yourself to see what your driver prints"
        )
    )]
    NpuSmi {
        /// What is wrong.
        detail: String,
        /// The bad line or field.
        #[label("{detail}")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
    /// `/proc/meminfo` without a readable `MemTotal`/`MemAvailable`.
    #[error("meminfo is not what Linux prints: {detail}")]
    #[diagnostic(
        code(resource_pool::local::meminfo),
        help(
            "expected `MemTotal:  263921808 kB` and `MemAvailable:  ... kB` lines, as Linux's /proc/meminfo has them"
        )
    )]
    Meminfo {
        /// What is wrong.
        detail: String,
        /// The bad line or field.
        #[label("{detail}")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
}

/// One GPU as nvidia-smi lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NvidiaGpu {
    /// nvidia-smi's index.
    pub index: u32,
    /// The product name (`NVIDIA H100 80GB HBM3`).
    pub name: String,
    /// The UUID (`GPU-…`).
    pub uuid: String,
    /// Its memory in MiB, when the driver reports it.
    pub memory_mib: Option<u64>,
}

/// One Ascend card as `npu-smi info -l` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AscendCard {
    /// npu-smi's `NPU ID`.
    pub npu_id: u32,
    /// `Product Name` (or `Name`), when printed.
    pub product: Option<String>,
    /// `Chip Count`: the NPUs Ray counts on this card.
    pub chips: u32,
}

/// The memory lines of `/proc/meminfo`, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemInfo {
    /// `MemTotal`.
    pub total_bytes: u64,
    /// `MemAvailable` (or `MemFree` when the kernel has no `MemAvailable`).
    pub available_bytes: u64,
}

/// What is known of this machine: the parsed outputs and the environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalFacts {
    /// The node's id: the hostname.
    pub hostname: String,
    /// The CPU count.
    pub cpus: u64,
    /// The memory `/proc/meminfo` reports.
    pub memory: MemInfo,
    /// The NVIDIA GPUs; `None` when nvidia-smi is not installed.
    pub nvidia: Option<Vec<NvidiaGpu>>,
    /// The Ascend cards; `None` when npu-smi is not installed.
    pub ascend: Option<Vec<AscendCard>>,
    /// `CUDA_VISIBLE_DEVICES`, when set.
    pub cuda_visible_devices: Option<String>,
    /// `ASCEND_RT_VISIBLE_DEVICES`, when set.
    pub ascend_rt_visible_devices: Option<String>,
}

/// The lines of a text with the byte offset each starts at, without the line ending.
fn lines_with_offsets(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut offset = 0;
    text.split_inclusive('\n').map(move |raw| {
        let start = offset;
        offset += raw.len();
        (start, raw.trim_end_matches(['\n', '\r']))
    })
}

/// The non-blank lines of a `KEY : VALUE` text (npu-smi, /proc/meminfo): each line's
/// offset, the line, the line trimmed, and its key and value trimmed (`None` without a
/// `:`).
fn key_value_lines(text: &str) -> impl Iterator<Item = (usize, &str, &str, Option<(&str, &str)>)> {
    lines_with_offsets(text).filter_map(|(start, line)| {
        let trimmed = line.trim();
        (!trimmed.is_empty()).then(|| {
            let pair = trimmed
                .split_once(':')
                .map(|(key, value)| (key.trim(), value.trim()));
            (start, line, trimmed, pair)
        })
    })
}

/// The span of `part`, a sub-slice of `line` which starts at `line_start`.
fn span_of(line_start: usize, line: &str, part: &str) -> miette::SourceSpan {
    let at = (part.as_ptr() as usize).saturating_sub(line.as_ptr() as usize);
    (line_start + at.min(line.len()), part.len()).into()
}

/// Parses nvidia-smi's CSV ([`NVIDIA_SMI_ARGS`]); every bad line at once.
pub fn parse_nvidia_smi(text: &str) -> Result<Vec<NvidiaGpu>, Vec<LocalError>> {
    let mut gpus: Vec<NvidiaGpu> = Vec::new();
    let mut errors = Vec::new();
    let error = |detail: String, span| LocalError::NvidiaSmi { detail, span };
    for (start, line) in lines_with_offsets(text) {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let fields: Vec<&str> = trimmed.split(',').map(str::trim).collect();
        let [index, name, uuid, memory] = fields.as_slice() else {
            errors.push(error(
                match fields.len() {
                    1 => "1 field, expected 4".to_owned(),
                    n => format!("{n} fields, expected 4"),
                },
                span_of(start, line, trimmed),
            ));
            continue;
        };
        let index_value = match index.parse::<u32>() {
            Ok(n) => Some(n),
            Err(_) => {
                errors.push(error(
                    format!("index `{index}` is not a number"),
                    span_of(start, line, index),
                ));
                None
            }
        };
        if name.is_empty() {
            errors.push(error(
                "empty GPU name".into(),
                span_of(start, line, trimmed),
            ));
        }
        if uuid.is_empty() {
            errors.push(error("empty UUID".into(), span_of(start, line, trimmed)));
        }
        let memory_mib = if memory.starts_with('[') {
            // `[N/A]`, `[Not Supported]`: the driver does not say.
            None
        } else {
            match memory.parse::<u64>() {
                Ok(n) => Some(n),
                Err(_) => {
                    errors.push(error(
                        format!("memory `{memory}` is not a number of MiB"),
                        span_of(start, line, memory),
                    ));
                    None
                }
            }
        };
        if let Some(index) = index_value {
            if gpus.iter().any(|g| g.index == index) {
                errors.push(error(
                    format!("GPU index {index} is listed twice"),
                    span_of(start, line, fields[0]),
                ));
                continue;
            }
            gpus.push(NvidiaGpu {
                index,
                name: (*name).to_owned(),
                uuid: (*uuid).to_owned(),
                memory_mib,
            });
        }
    }
    if errors.is_empty() {
        Ok(gpus)
    } else {
        Err(errors)
    }
}

/// Parses `npu-smi info -l` ([`NPU_SMI_ARGS`]); every bad line at once.
pub fn parse_npu_smi(text: &str) -> Result<Vec<AscendCard>, Vec<LocalError>> {
    let mut cards: Vec<AscendCard> = Vec::new();
    let mut errors = Vec::new();
    let mut total: Option<(u32, miette::SourceSpan)> = None;
    let mut ids = std::collections::HashSet::new();
    let error = |detail: String, span| LocalError::NpuSmi { detail, span };
    for (start, line, trimmed, pair) in key_value_lines(text) {
        let Some((key, value)) = pair else {
            errors.push(error(
                "not a `KEY : VALUE` line".into(),
                span_of(start, line, trimmed),
            ));
            continue;
        };
        let number = |errors: &mut Vec<LocalError>| match value.parse::<u32>() {
            Ok(n) => Some(n),
            Err(_) => {
                errors.push(error(
                    format!("`{key}` is `{value}`, not a number"),
                    span_of(start, line, value),
                ));
                None
            }
        };
        match key {
            "Total Count" => {
                if let Some(n) = number(&mut errors) {
                    total = Some((n, span_of(start, line, value)));
                }
            }
            "NPU ID" => {
                if let Some(npu_id) = number(&mut errors) {
                    if !ids.insert(npu_id) {
                        errors.push(error(
                            format!("NPU ID {npu_id} is listed twice"),
                            span_of(start, line, value),
                        ));
                    }
                    cards.push(AscendCard {
                        npu_id,
                        product: None,
                        chips: 1,
                    });
                }
            }
            "Chip Count" | "Product Name" | "Name" => {
                let Some(card) = cards.last_mut() else {
                    errors.push(error(
                        format!("`{key}` before any `NPU ID`"),
                        span_of(start, line, trimmed),
                    ));
                    continue;
                };
                if key == "Chip Count" {
                    if let Some(chips) = number(&mut errors) {
                        card.chips = chips;
                    }
                } else if !value.is_empty() {
                    card.product = Some(value.to_owned());
                }
            }
            _ => {}
        }
    }
    if let Some((n, span)) = total
        && errors.is_empty()
        && n as usize != cards.len()
    {
        errors.push(error(
            format!("Total Count is {n}, but {} cards are listed", cards.len()),
            span,
        ));
    }
    if errors.is_empty() {
        Ok(cards)
    } else {
        Err(errors)
    }
}

/// Parses `/proc/meminfo`: `MemTotal` and `MemAvailable` (or `MemFree`), in bytes.
pub fn parse_meminfo(text: &str) -> Result<MemInfo, Vec<LocalError>> {
    let mut errors = Vec::new();
    let mut total = None;
    let mut available = None;
    let mut free = None;
    let error = |detail: String, span| LocalError::Meminfo { detail, span };
    for (start, line, trimmed, pair) in key_value_lines(text) {
        let Some((key, value)) = pair else {
            errors.push(error(
                "not a `Key:  VALUE kB` line".into(),
                span_of(start, line, trimmed),
            ));
            continue;
        };
        let slot = match key {
            "MemTotal" => &mut total,
            "MemAvailable" => &mut available,
            "MemFree" => &mut free,
            _ => continue,
        };
        let kib = value
            .strip_suffix("kB")
            .map(str::trim_end)
            .and_then(|n| n.parse::<u64>().ok());
        let bytes = kib
            .and_then(|n| n.checked_mul(1024))
            .filter(|&b| b <= Amount::MAX_WHOLE);
        match bytes {
            Some(bytes) => *slot = Some(bytes),
            None => errors.push(error(
                format!("`{key}` is `{value}`, not a size such as `263921808 kB`"),
                span_of(start, line, value),
            )),
        }
    }
    let end: miette::SourceSpan = (text.len(), 0).into();
    if total.is_none() && errors.is_empty() {
        errors.push(error("no `MemTotal` line".into(), end));
    }
    let available = available.or(free);
    if available.is_none() && errors.is_empty() {
        errors.push(error("no `MemAvailable` or `MemFree` line".into(), end));
    }
    match (total, available) {
        (Some(total_bytes), Some(available_bytes)) if errors.is_empty() => Ok(MemInfo {
            total_bytes,
            available_bytes: available_bytes.min(total_bytes),
        }),
        _ => Err(errors),
    }
}

/// How many devices a `*_VISIBLE_DEVICES` value names, as Ray counts them: `None` when
/// unset (all visible), 0 for empty or `NoDevFiles`, else the comma-separated ids.
pub fn visible_count(value: Option<&str>) -> Option<u64> {
    let value = value?;
    if value.is_empty() || value == "NoDevFiles" {
        return Some(0);
    }
    Some(value.split(',').count() as u64)
}

/// The one-node inventory of this machine. A machine with no GPU or NPU gives a node
/// with none and an [`InventoryNote::NoLocalAccelerators`] that says why.
pub fn local_inventory(facts: &LocalFacts) -> Inventory {
    let mut reasons = Vec::new();

    let gpus = count_visible(
        facts.nvidia.as_ref().map(|g| g.len() as u64),
        facts.cuda_visible_devices.as_deref(),
        ("nvidia-smi", "GPU", "CUDA_VISIBLE_DEVICES"),
        &mut reasons,
    );
    let chips = facts
        .ascend
        .as_ref()
        .map(|cards| cards.iter().map(|c| u64::from(c.chips)).sum());
    let npus = count_visible(
        chips,
        facts.ascend_rt_visible_devices.as_deref(),
        ("npu-smi", "NPU", "ASCEND_RT_VISIBLE_DEVICES"),
        &mut reasons,
    );

    let whole = |n: u64| Amount::from_whole(n).unwrap_or(Amount::from_units(u64::MAX));
    let accelerators = Resources::new()
        .with(names::CPU, whole(facts.cpus))
        .with(names::GPU, whole(gpus))
        .with(names::NPU, whole(npus));
    let total = accelerators
        .clone()
        .with(names::MEMORY, whole(facts.memory.total_bytes));
    let available = accelerators.with(names::MEMORY, whole(facts.memory.available_bytes));
    let mut node = Node::new(facts.hostname.clone(), available).with_total(total);
    if let Some(name) = shared(facts.nvidia.iter().flatten().map(|g| Some(g.name.as_str()))) {
        node.labels.insert("gpu_product".into(), name.to_owned());
    }
    if let Some(name) = shared(facts.ascend.iter().flatten().map(|c| c.product.as_deref())) {
        node.labels.insert("npu_product".into(), name.to_owned());
    }

    let mut notes = Vec::new();
    if gpus == 0 && npus == 0 {
        notes.push(InventoryNote::NoLocalAccelerators {
            reason: reasons.join("; "),
        });
    }
    Inventory {
        cluster: Cluster::new(vec![node]),
        notes,
    }
}

/// The devices Ray would count, and why there are none when there are none.
fn count_visible(
    detected: Option<u64>,
    visible: Option<&str>,
    (tool, what, variable): (&str, &str, &str),
    reasons: &mut Vec<String>,
) -> u64 {
    let Some(detected) = detected else {
        reasons.push(format!("{tool} is not installed"));
        return 0;
    };
    if detected == 0 {
        reasons.push(format!("{tool} lists no {what}"));
        return 0;
    }
    match visible_count(visible) {
        Some(0) => {
            reasons.push(format!("{variable} hides all {detected} {what}s"));
            0
        }
        Some(n) => n.min(detected),
        None => detected,
    }
}

/// The one value all items share, if there is at least one and none differs or is absent.
fn shared<'a>(mut items: impl Iterator<Item = Option<&'a str>>) -> Option<&'a str> {
    let first = items.next()??;
    items.all(|x| x == Some(first)).then_some(first)
}

#[cfg(test)]
mod tests;
