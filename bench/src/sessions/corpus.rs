//! The generated corpus of the memory benchmark: a seeded generator of realistic sessions
//! (a Zipf vocabulary of English and programming words, identifiers, tool calls and
//! results, planted marker words) written as generic JSONL files. See `sessions.rs`.

use super::*;

/// SplitMix64: small, fast, and the same everywhere.
pub(super) struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (n < 2^32).
    fn below(&mut self, n: u64) -> u64 {
        ((self.next() >> 32) * n) >> 32
    }

    /// A number in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }
}

/// Common English words, roughly by frequency, then programming words, then more English.
/// Order is rank: the first is the most common.
pub(super) const BASE_WORDS: &str = "
the of and to a in is it you that he was for on are with as i his they be at one have this
from or had by not word but what some we can out other were all there when up use your how
said an each she which do their time if will way about many then them write would like so
these her long make thing see him two has look more day could go come did number sound no
most people my over know water than call first who may down side been now find any new work
part take get place made live where after back little only round man year came show every
good me give our under name very through just form sentence great think say help low line
differ turn cause much mean before move right boy old too same tell does set three want air
well also play small end put home read hand port large spell add even land here must big
high such follow act why ask men change went light kind off need house picture try us again
animal point mother world near build self earth father head stand own page should country
found answer school grow study still learn plant cover food sun four between state keep eye
never last let thought city tree cross farm hard start might story saw far sea draw left
late run while press close night real life few north
file code test function error value type return list string run build module class method
import fix bug issue update check output input path config command user result query index
table row column field key object array parse format load save open stop server client
request response status message log debug warning info trace stack frame thread process
memory cache buffer stream socket host url http api json yaml toml schema model view
controller route handler event callback promise async await future task job queue worker
pool lock mutex channel signal timeout retry limit size count length offset range slice
vector map hash graph node edge link parent child root branch commit merge rebase push pull
diff patch version release tag deploy docker container image volume network proxy cluster
service endpoint token auth session cookie header body payload encode decode serialize
deserialize compile compiler linker binary library package crate dependency lockfile cargo
rust python pytest unittest fixture mock assert expect panic unwrap option none err match
enum struct trait impl generic lifetime borrow reference pointer box vec iterator closure
macro attribute derive default clone copy display sync send arc refcell cell unsafe extern
mod pub fn mut const static super loop break continue else true false null undefined var
def lambda yield decorator property staticmethod classmethod init dict tuple bytes int float
bool str print regex pattern filter sort reverse join split strip replace contains starts
ends lower upper trim utf ascii unicode char byte bit flag argument parameter variable
constant global local scope namespace directory folder workspace repo repository remote
origin upstream fork review comment approve reject pipeline workflow action step lint
clippy rustfmt deprecated migration database sqlite postgres sql select insert delete
create drop alter transaction rollback vacuum fts snippet rank search score weight term
document corpus vocabulary tokenizer parser lexer ast syntax grammar expression statement
block symbol identifier literal operator precedence ledger account balance debit credit
amount currency decimal rounding invoice payment transfer journal entry posting report export
csv mount fuse inode kernel filesystem readdir lookup getattr setattr flush fsync unlink
rename mkdir rmdir symlink permission owner group mode chmod chown daemon foreground
background pid sigterm shutdown restart benchmark latency throughput median percentile ratio
budget prune resource summary related recall transcript agent prompt assistant claude codex
context window conversation
problem solution approach idea plan reason example case question simple complex quick slow
fast better worse best worst important possible available current previous next final
initial original actual expected missing broken wrong correct valid invalid empty whole
single multiple several various different similar specific general common rare unique random
fixed stable unstable safe risky clear unclear easy difficult sure maybe probably likely
already yet instead rather quite almost enough perhaps actually basically simply exactly
especially usually often sometimes always rarely early later soon today tomorrow yesterday
morning evening week month minute hour moment during until since although though unless
whether either neither both another across along around behind below above inside outside
without within against toward among upon onto
";

/// The vocabulary: the base words, then their plural, past and -ing forms (rarer).
pub(super) fn vocabulary() -> Vec<String> {
    let mut seen = HashSet::new();
    let mut words: Vec<String> = Vec::new();
    for word in BASE_WORDS.split_whitespace() {
        if seen.insert(word.to_string()) {
            words.push(word.to_string());
        }
    }
    let base = words.clone();
    for word in &base {
        if word.len() < 4 {
            continue;
        }
        for form in forms(word) {
            if seen.insert(form.clone()) {
                words.push(form);
            }
        }
    }
    words
}

/// Plural, past and -ing forms, by the usual spelling rules (close enough for an index).
pub(super) fn forms(word: &str) -> [String; 3] {
    let last = word.as_bytes()[word.len() - 1];
    let before = word.as_bytes()[word.len() - 2];
    let vowel = |c: u8| b"aeiou".contains(&c);
    let stem = &word[..word.len() - 1];
    let plural = if word.ends_with(['s', 'x', 'z']) || word.ends_with("ch") || word.ends_with("sh")
    {
        format!("{word}es")
    } else if last == b'y' && !vowel(before) {
        format!("{stem}ies")
    } else {
        format!("{word}s")
    };
    let past = if last == b'e' {
        format!("{word}d")
    } else if last == b'y' && !vowel(before) {
        format!("{stem}ied")
    } else {
        format!("{word}ed")
    };
    let ing = if last == b'e' && before != b'e' {
        format!("{stem}ing")
    } else {
        format!("{word}ing")
    };
    [plural, past, ing]
}

/// A table of word numbers in which word `r` fills a share of the slots proportional to
/// 1 / (r + 1): a uniform slot is a Zipf-distributed word.
pub(super) fn zipf_table(n: usize) -> Vec<u16> {
    const SLOTS: f64 = (1 << 21) as f64;
    let total: f64 = (1..=n).map(|r| 1.0 / r as f64).sum();
    let mut table = Vec::with_capacity(1 << 21);
    for r in 0..n {
        let slots = ((SLOTS / total / (r + 1) as f64).round() as usize).max(1);
        table.extend(std::iter::repeat_n(r as u16, slots));
    }
    table
}

/// One generated session.
pub(super) struct SessionPlan {
    pub(super) id: String,
    pub(super) day: String,
}

/// What was generated.
pub(super) struct Corpus {
    pub(super) sessions: Vec<SessionPlan>,
    pub(super) entries: u64,
    pub(super) words: u64,
    pub(super) bytes: u64,
    pub(super) vocabulary: usize,
    /// The most common word, and how many entries have it.
    pub(super) common: &'static str,
    pub(super) common_entries: u64,
}

/// Channels in conversation order.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Speaker {
    User,
    Thinking,
    Assistant,
    ToolCall,
    ToolResult,
}

impl Speaker {
    /// `"role":"user"` or `"channel":"thinking"`, as exporters write either.
    fn field(self) -> &'static str {
        match self {
            Speaker::User => r#""role":"user""#,
            Speaker::Assistant => r#""role":"assistant""#,
            Speaker::Thinking => r#""channel":"thinking""#,
            Speaker::ToolCall => r#""channel":"tool_call""#,
            Speaker::ToolResult => r#""channel":"tool_result""#,
        }
    }

    fn next(self, rng: &mut Rng) -> Speaker {
        let roll = rng.below(10);
        match self {
            Speaker::User => [Speaker::Thinking, Speaker::Assistant][(roll % 2) as usize],
            Speaker::Thinking => [Speaker::Assistant, Speaker::ToolCall][(roll % 2) as usize],
            Speaker::Assistant if roll < 5 => Speaker::ToolCall,
            Speaker::Assistant if roll < 8 => Speaker::User,
            Speaker::Assistant => Speaker::Thinking,
            Speaker::ToolCall => Speaker::ToolResult,
            Speaker::ToolResult if roll < 3 => Speaker::Thinking,
            Speaker::ToolResult if roll < 7 => Speaker::Assistant,
            Speaker::ToolResult => Speaker::ToolCall,
        }
    }
}

pub(super) const TOOLS: [&str; 6] = [
    "Bash: ",
    "Read: src/",
    "Edit: src/",
    "Grep: ",
    "Write: tests/",
    "Bash: cargo test ",
];
pub(super) const VERBS: [&str; 10] = [
    "Fix",
    "Add",
    "Refactor",
    "Debug",
    "Speed up",
    "Document",
    "Test",
    "Review",
    "Investigate",
    "Migrate",
];

/// Identifiers as code names them (`parseAmount`): two words of the vocabulary in camel
/// case, one token for the index; `count` different ones.
pub(super) fn identifiers(rng: &mut Rng, vocab: &[String], count: usize) -> Vec<String> {
    let pick = |rng: &mut Rng| loop {
        let word = &vocab[50 + rng.below(1_000) as usize];
        if word.len() >= 3 {
            return word.clone();
        }
    };
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let (first, second) = (pick(rng), pick(rng));
        let mut name = first;
        let mut rest = second.chars();
        name.extend(rest.next().map(|c| c.to_ascii_uppercase()));
        name.extend(rest);
        if seen.insert(name.to_lowercase()) {
            out.push(name);
        }
    }
    out
}

/// What one session is about, as word numbers in the vocabulary.
pub(super) struct Topic {
    /// Ordinary words it uses more than others.
    subject: [usize; 6],
    /// Its project's identifiers.
    project: Vec<usize>,
    /// Its current task's identifiers (each shared with two or three other sessions).
    tasks: [usize; 4],
}

/// Writes the transcripts of `scale` under `dir`: one `chat-NNNN.jsonl` per session, in
/// time order.
pub(super) fn generate(dir: &Path, scale: &Scale) -> Corpus {
    let mut rng = Rng(SEED);
    let mut vocab = vocabulary();
    let zipf_words = vocab.len();
    let table = zipf_table(zipf_words);
    let common = BASE_WORDS.split_whitespace().next().expect("a first word");
    let names = identifiers(
        &mut rng,
        &vocab,
        PROJECTS * PROJECT_IDENTIFIERS + scale.task_pool,
    );
    vocab.extend(names);
    let project_ids = |p: usize| {
        let first = zipf_words + p * PROJECT_IDENTIFIERS;
        (first..first + PROJECT_IDENTIFIERS).collect::<Vec<usize>>()
    };
    let task_base = zipf_words + PROJECTS * PROJECT_IDENTIFIERS;

    // Session lengths: skewed (log-uniform over a factor of 40), summing to the regular entries.
    let weights: Vec<f64> = (0..scale.regular_sessions)
        .map(|_| 40f64.powf(rng.unit()))
        .collect();
    let sum: f64 = weights.iter().sum();
    let mut sizes: Vec<u64> = weights
        .iter()
        .map(|w| ((w / sum * scale.regular_entries as f64) as u64).max(1))
        .collect();
    let mut short = scale.regular_entries as i64 - sizes.iter().sum::<u64>() as i64;
    while short != 0 {
        let i = rng.below(sizes.len() as u64) as usize;
        if short > 0 {
            sizes[i] += 1;
            short -= 1;
        } else if sizes[i] > 1 {
            sizes[i] -= 1;
            short += 1;
        }
    }
    sizes.insert(scale.big_at, scale.big_entries);
    let total: u64 = sizes.iter().sum();

    // The planted words: entry numbers (over all sessions) for each.
    let mut planted: HashMap<u64, Vec<&'static str>> = HashMap::new();
    for &(word, n) in &scale.markers {
        let mut chosen = HashSet::with_capacity(n);
        while chosen.len() < n {
            chosen.insert(rng.below(total));
        }
        for i in chosen {
            planted.entry(i).or_default().push(word);
        }
    }

    let first_day = days_from_civil(FIRST_DAY.0, FIRST_DAY.1, FIRST_DAY.2);
    let mut corpus = Corpus {
        sessions: Vec::with_capacity(sizes.len()),
        entries: 0,
        words: 0,
        bytes: 0,
        vocabulary: vocab.len(),
        common,
        common_entries: 0,
    };
    let mut line = String::with_capacity(8 * 1024);
    let mut global = 0u64;
    for (k, &size) in sizes.iter().enumerate() {
        let id = format!(
            "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
            rng.next() as u32,
            rng.next() as u16,
            rng.next() as u16,
            rng.next() as u16,
            rng.next() & 0xffff_ffff_ffff
        );
        let day = first_day + k as i64 * SPAN_DAYS / sizes.len() as i64;
        let mut ts = day * 86_400 + 8 * 3600 + rng.below(10 * 3600) as i64;
        let mut draw = |from: usize, n: usize| from + rng.below(n as u64) as usize;
        let mut topic = Topic {
            // From below the most common words.
            subject: std::array::from_fn(|_| draw(300, zipf_words - 300)),
            project: project_ids(draw(0, PROJECTS)),
            tasks: std::array::from_fn(|_| draw(task_base, scale.task_pool)),
        };
        let title = format!(
            "{} {} {} ({})",
            VERBS[rng.below(VERBS.len() as u64) as usize],
            vocab[topic.tasks[0]],
            vocab[topic.subject[0]],
            vocab[topic.tasks[1]]
        );
        let path = dir.join(format!("chat-{k:04}.jsonl"));
        let file = File::create(&path).expect("create a transcript file");
        let mut out = BufWriter::with_capacity(1 << 20, file);
        line.clear();
        line.push_str(&format!("{{\"session\":\"{id}\",\"title\":\"{title}\"}}\n"));
        let mut speaker = Speaker::User;
        for n in 0..size {
            if n > 0 && n % TASK_SPAN == 0 {
                topic.tasks =
                    std::array::from_fn(|_| task_base + rng.below(scale.task_pool as u64) as usize);
            }
            let markers = planted.get(&global).map(Vec::as_slice).unwrap_or(&[]);
            let (words, has_common) = entry_line(
                &mut line, &mut rng, &vocab, &table, &topic, &id, ts, speaker, markers,
            );
            corpus.words += words;
            corpus.common_entries += u64::from(has_common);
            global += 1;
            ts += 2 + rng.below(40) as i64;
            speaker = speaker.next(&mut rng);
            if line.len() > 1 << 20 {
                out.write_all(line.as_bytes()).expect("write a transcript");
                corpus.bytes += line.len() as u64;
                line.clear();
            }
        }
        out.write_all(line.as_bytes()).expect("write a transcript");
        corpus.bytes += line.len() as u64;
        line.clear();
        out.flush().expect("flush a transcript");
        corpus.entries += size;
        let start = homespace::model::time::rfc3339((day.max(0) * 86_400) as u64);
        corpus.sessions.push(SessionPlan {
            id,
            day: start[..10].to_string(),
        });
    }
    corpus
}

/// Appends one entry's JSON line to `line`; returns its word count and whether it has the
/// most common word.
#[allow(clippy::too_many_arguments)]
pub(super) fn entry_line(
    line: &mut String,
    rng: &mut Rng,
    vocab: &[String],
    table: &[u16],
    topic: &Topic,
    session: &str,
    ts: i64,
    speaker: Speaker,
    markers: &[&str],
) -> (u64, bool) {
    // 20 to 400 words, log-uniform.
    let count = (20.0 * 20f64.powf(rng.unit())) as usize;
    let at = rng.below(count as u64) as usize;
    line.push_str("{\"ts\":\"");
    line.push_str(&homespace::model::time::rfc3339(ts.max(0) as u64));
    line.push_str("\",");
    line.push_str(speaker.field());
    line.push_str(",\"content\":\"");
    if speaker == Speaker::ToolCall {
        let tool = TOOLS[rng.below(TOOLS.len() as u64) as usize];
        line.push_str(tool);
        if tool.ends_with('/') {
            let pick = |rng: &mut Rng| topic.subject[rng.below(6) as usize];
            let (a, b) = (pick(rng), pick(rng));
            line.push_str(&format!("{}/{}_{}.py ", vocab[a], vocab[b], vocab[a]));
        }
    }
    // Inserted words start after a space (not after an escaped line break's `n`).
    let insert = |line: &mut String, word: &str| {
        if !line.ends_with([' ', '"']) {
            line.push(' ');
        }
        line.push_str(word);
        line.push(' ');
    };
    let mut has_common = false;
    let mut since_break = 0;
    for i in 0..count {
        if i == at {
            for marker in markers {
                insert(line, marker);
            }
        }
        // A word in 16 is the session's subject, one in 64 its project's, one in 128 its
        // task's; the rest are the language's.
        let word = match rng.below(256) {
            0..16 => topic.subject[rng.below(6) as usize],
            16..20 => topic.project[rng.below(topic.project.len() as u64) as usize],
            20..22 => topic.tasks[rng.below(4) as usize],
            _ => table[rng.below(table.len() as u64) as usize] as usize,
        };
        has_common |= word == 0;
        line.push_str(&vocab[word]);
        since_break += 1;
        let last = i + 1 == count;
        match speaker {
            Speaker::ToolResult if !last && rng.chance(40) => {
                // A commit hash, a line number: the long tail of rare tokens.
                line.push_str(&format!(" {:07x}", rng.next() & 0xfff_ffff));
                line.push(' ');
            }
            Speaker::ToolResult if !last && since_break > 8 && rng.chance(4) => {
                line.push_str("\\n");
                since_break = 0;
            }
            Speaker::User | Speaker::Assistant | Speaker::Thinking
                if since_break > 6 && rng.chance(8) =>
            {
                line.push_str(if last { "." } else { ". " });
                since_break = 0;
            }
            _ if last => {}
            _ => line.push(' '),
        }
    }
    line.push_str("\",\"session\":\"");
    line.push_str(session);
    line.push_str("\"}\n");
    (count as u64, has_common)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
pub(super) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}
