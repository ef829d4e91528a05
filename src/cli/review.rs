//! `folio review [PATH] list|show|approve|veto|forget|promote|merge|baseline|undo`: the CLI face of the
//! review inbox, a thin layer over `store::review` (the TUI pane uses the same calls).
use std::path::PathBuf;

use anyhow::Context;
use serde_json::json;

use super::common::{Global, find_entity, open_store_as_is, print_json};
use super::escape;
use super::write_flags::{self, WriteFlags};
use folio_core::store::Store;
use folio_core::store::history::attribution;
use folio_core::store::model::entity::EntityIdx;
use folio_core::store::review::filter::Filter;
use folio_core::store::review::group::Grouping;
use folio_core::store::review::since::SinceApproval;
use folio_core::store::review::{self, Plan, Reviewer, Verdict, diff};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Store to open (default: found from the current directory upward).
    pub path: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Sub,
}

#[derive(clap::Subcommand, Debug)]
pub enum Sub {
    /// Everything awaiting a decision, with why.
    List {
        #[arg(long)]
        json: bool,
        /// Only items matching every term: `status:draft kind:X older:30d reason:candidate path:P
        /// author:A session:S`.
        #[arg(long)]
        filter: Option<String>,
        /// Gather the items by who wrote them (`author`) or the agent run that wrote them
        /// (`session`): a header per group in text, `groups` in JSON.
        #[arg(long, value_parser = parse_grouping)]
        group: Option<Grouping>,
    },
    /// One item: why it is queued, its evidence and findings, its diff since last approval.
    Show {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Accept entities as they stand now.
    Approve {
        ids: Vec<String>,
        /// AIP-10 contradiction: this entity wins over OTHER (supersedes it; both `contradicts` cleared).
        #[arg(long, value_name = "OTHER")]
        over: Option<String>,
        /// What the approved entry is filed as, where the format asks (awareness: preference,
        /// pattern, project or review, as `awareness memory promote --kind` names them).
        #[arg(long, value_name = "KIND")]
        kind: Option<String>,
        #[command(flatten)]
        select: Select,
    },
    /// Reject entities with a reason (never destroyed; never proposed again as they are).
    Veto {
        ids: Vec<String>,
        #[arg(long, required = true)]
        reason: String,
        #[command(flatten)]
        select: Select,
    },
    /// Take entities out of the active set without a verdict on their truth.
    Forget {
        ids: Vec<String>,
        #[command(flatten)]
        select: Select,
    },
    /// Advance maturity or kind (fact → playbook → skill, draft → stable, shadow → active).
    Promote {
        id: String,
        #[arg(long, value_name = "LEVEL")]
        to: Option<String>,
        #[command(flatten)]
        expect: Expect,
        #[command(flatten)]
        write: WriteFlags,
    },
    /// Fold FROM into INTO: links and typed edges to FROM repointed (INTO's own links to FROM
    /// unwrapped), FROM archived; INTO keeps its body unless told otherwise.
    Merge {
        from: String,
        into: String,
        /// The merged body of INTO, read from FILE (default: INTO's body as it is).
        #[arg(long, value_name = "FILE", conflicts_with = "append_body")]
        body_from: Option<PathBuf>,
        /// Append FROM's body to INTO's under a `## Merged from` heading.
        #[arg(long)]
        append_body: bool,
        #[command(flatten)]
        expect: Expect,
        #[command(flatten)]
        write: WriteFlags,
    },
    /// Adopt the store as it stands: record every matching inbox item's current text as
    /// reviewed in folio's ledger (no store file rewritten, one log event); afterwards only what
    /// agents change or add enters the inbox. Hidden content is never baselined.
    Baseline {
        /// Only inbox items matching every term (as `list --filter`).
        #[arg(long)]
        filter: Option<String>,
        #[command(flatten)]
        write: WriteFlags,
    },
    /// Confirm a possible contradiction (lint `possible-contradiction`): both entities name
    /// each other in the format's own `contradicts` field (OKF, AIP-10), to be resolved in the
    /// inbox like any declared contradiction.
    Contradicts {
        id: String,
        other: String,
        #[command(flatten)]
        write: WriteFlags,
    },
    /// Dismiss a possible contradiction: remembered in the store's `.folio/config.toml` as an
    /// `[[ignore]]` entry naming both entities; that pair is never reported again.
    Dismiss {
        id: String,
        other: String,
        #[arg(long, required = true)]
        reason: String,
        #[command(flatten)]
        write: WriteFlags,
    },
    /// Revert the last change folio made (byte-exact) and put its items back in the queue.
    Undo {
        #[command(flatten)]
        write: WriteFlags,
    },
}

/// Bind a decision to the text the person read.
#[derive(clap::Args, Debug, Default)]
pub struct Expect {
    /// Decide only if the entity's text still has this digest (`hash` in `review show --json`
    /// or `list --json`); otherwise refuse and show what changed. With several entities,
    /// `ID=DIGEST`, repeated.
    #[arg(long = "expect", value_name = "[ID=]DIGEST")]
    pub digests: Vec<String>,
}

impl Expect {
    /// Refuse unless every named entity (or the only target) still holds the digest given.
    fn check(&self, store: &Store, targets: &[EntityIdx]) -> anyhow::Result<()> {
        for spec in &self.digests {
            let (id, digest) = review::expect::parse(spec);
            let idx = match id {
                Some(id) => find_entity(store, id)?,
                None if targets.len() == 1 => targets[0],
                None => anyhow::bail!("--expect {spec}: several entities are decided; name each as ID=DIGEST"),
            };
            if !targets.contains(&idx) {
                anyhow::bail!("--expect {spec}: `{}` is not among the entities decided", store.entity(idx).id);
            }
            review::expect::check(store, idx, digest)?;
        }
        Ok(())
    }
}

#[derive(clap::Args, Debug)]
pub struct Select {
    /// Decide on every queued item matching this filter (bulk, one changeset).
    #[arg(long)]
    filter: Option<String>,
    /// Approve content flagged for hidden control characters (the second confirmation).
    #[arg(long)]
    confirm_hidden: bool,
    /// Veto or forget: leave a stub page where the file was, so links into it keep resolving
    /// (refused in a format whose own tool would read a stub as live knowledge).
    #[arg(long)]
    stub: bool,
    #[command(flatten)]
    expect: Expect,
    #[command(flatten)]
    write: WriteFlags,
}

pub fn run(g: &Global, a: Args) -> anyhow::Result<u8> {
    let path = a.path.as_deref();
    match a.command {
        Sub::List { json, filter, group } => super::review_list::list(g, path, json, filter.as_deref(), group),
        Sub::Show { id, json } => show(&open_store_as_is(g, path)?, &id, json),
        Sub::Approve { ids, over, kind, select } => decide(g, path, ids, Verdict::Approve { over, kind }, select),
        Sub::Veto { ids, reason, select } => decide(g, path, ids, Verdict::Veto { reason }, select),
        Sub::Forget { ids, select } => decide(g, path, ids, Verdict::Forget, select),
        Sub::Promote { id, to, expect, write } => {
            let select = Select { filter: None, confirm_hidden: false, stub: false, expect, write };
            decide(g, path, vec![id], Verdict::Promote { to }, select)
        }
        Sub::Merge { from, into, body_from, append_body, expect, write } => {
            let store = write_flags::open_resolved(g, path, write.read_only)?;
            let (a, b) = (find_entity(&store, &from)?, find_entity(&store, &into)?);
            if expect.digests.len() == 1 && review::expect::parse(&expect.digests[0]).0.is_none() {
                anyhow::bail!("--expect with merge names its entity: FROM=DIGEST or INTO=DIGEST");
            }
            expect.check(&store, &[a, b])?;
            let body = match &body_from {
                Some(f) => Some(std::fs::read_to_string(f).with_context(|| f.display().to_string())?),
                None if append_body && a != b => Some(review::merge::appended_body(&store, a, b)?),
                None => None,
            };
            let plan = review::merge::plan(&store, a, b, body.as_deref(), &Reviewer::now(&write.actor()?))?;
            finish(&store, plan, &write)
        }
        Sub::Contradicts { id, other, write } => {
            let store = write_flags::open_resolved(g, path, write.read_only)?;
            let (a, b) = (find_entity(&store, &id)?, find_entity(&store, &other)?);
            let plan = review::contradiction::confirm(&store, a, b, &Reviewer::now(&write.actor()?))?;
            finish(&store, plan, &write)
        }
        Sub::Dismiss { id, other, reason, write } => {
            let store = write_flags::open_resolved(g, path, write.read_only)?;
            let (a, b) = (find_entity(&store, &id)?, find_entity(&store, &other)?);
            let actor = write.actor()?;
            let applied = folio_core::store::lint::ignore::dismiss(&store, a, b, &reason, &actor, &write.options())
                .map_err(write_flags::report)?;
            report_applied(&applied);
            Ok(0)
        }
        // The same command as `folio undo`: one path reverts files and ledger alike.
        Sub::Baseline { filter, write } => baseline(g, path, filter.as_deref().unwrap_or(""), &write),
        Sub::Undo { write } => super::undo::run(g, super::undo::Args { path: a.path, write }),
    }
}

fn parse_grouping(s: &str) -> Result<Grouping, String> {
    Grouping::parse(s).ok_or_else(|| format!("`{s}`: group by `author` or `session`"))
}

fn show(store: &Store, id: &str, as_json: bool) -> anyhow::Result<u8> {
    let idx = find_entity(store, id)?;
    let Some(item) = attribution::inbox(store).into_iter().find(|i| i.idx == idx) else {
        println!("{}: not awaiting review", escape::id(&store.entity(idx).id));
        return Ok(0);
    };
    let since = review::since::since_approval(store, &item);
    if as_json {
        let diff = match &since {
            SinceApproval::Changes { ops, .. } => Some(diff::render(ops)),
            _ => None,
        };
        print_json(&json!({ "item": item, "diff": diff }));
        return Ok(0);
    }
    let reasons: Vec<&str> = item.reasons.iter().map(|r| r.code()).collect();
    println!("{}  ({})", escape::id(&item.id), escape::line(&item.path));
    println!("queued: {}", reasons.join(", "));
    for f in &item.findings {
        println!("finding: {}", escape::line(f));
    }
    if item.hidden_content {
        println!("warning: hidden control characters; approving needs --confirm-hidden");
    }
    match since {
        SinceApproval::Changes { ops, .. } => {
            println!("--- changes since the last approval ---");
            print!("{}", escape::text(&diff::render(&ops)));
        }
        SinceApproval::TextNotKept { by, at } => {
            println!(
                "--- approved by {} at {}; that text is not kept: whole text ---",
                escape::line(&by),
                escape::line(&at)
            );
            print!("{}", escape::text(&store.read_entity_text(idx)?));
        }
        SinceApproval::Never => {
            println!("--- never approved: whole text ---");
            print!("{}", escape::text(&store.read_entity_text(idx)?));
        }
    }
    Ok(0)
}

fn decide(
    g: &Global,
    path: Option<&std::path::Path>,
    ids: Vec<String>,
    verdict: Verdict,
    select: Select,
) -> anyhow::Result<u8> {
    // A verdict that leaves its entities where they are reads them alone where the store opens
    // so (a database); a veto or forget, which lists the links into them, reads them and the
    // entities that may link in (`inbound`). A filter, a stub left in their place and the
    // other verdicts (a merge's repointing, an approval over another) read the whole store.
    let inbound = match &verdict {
        Verdict::Approve { over: None, .. } | Verdict::Promote { .. } => Some(false),
        Verdict::Veto { .. } | Verdict::Forget if !select.stub => Some(true),
        _ => None,
    };
    // Every name the command looks up is a node id in the part, else the whole store finds it
    // or says why not (`--expect` naming an entity not decided on included).
    let expected = select.expect.digests.iter().filter_map(|spec| review::expect::parse(spec).0);
    let looked_up: Vec<&str> = ids.iter().map(String::as_str).chain(expected).collect();
    let part = match inbound.filter(|_| select.filter.is_none() && !select.stub) {
        Some(inbound) => write_flags::open_part_resolved(g, path, select.write.read_only, |_, _| ids.clone(), inbound)?
            .filter(|store| looked_up.iter().all(|id| store.by_id(id).is_some())),
        None => None,
    };
    let store = match part {
        Some(store) => store,
        None => write_flags::open_resolved(g, path, select.write.read_only)?,
    };
    let mut targets: Vec<EntityIdx> = ids.iter().map(|id| find_entity(&store, id)).collect::<Result<_, _>>()?;
    if let Some(f) = &select.filter {
        let filter = Filter::parse(f).map_err(anyhow::Error::msg)?;
        let matched: Vec<EntityIdx> =
            attribution::inbox(&store).iter().filter(|i| filter.matches(i)).map(|i| i.idx).collect();
        println!("{} queued items match `{}`", matched.len(), escape::line(f));
        targets.extend(matched);
    }
    targets.sort_unstable();
    targets.dedup();
    if targets.is_empty() {
        anyhow::bail!("name at least one ID or a --filter that matches queued items");
    }
    select.expect.check(&store, &targets)?;
    let reviewer = Reviewer::now(&select.write.actor()?);
    let plan = match (select.stub, &verdict) {
        (true, Verdict::Veto { .. } | Verdict::Forget) => {
            review::verdict::plan_leaving_stubs(&store, &targets, &verdict, &reviewer, select.confirm_hidden)?
        }
        (true, _) => anyhow::bail!("--stub goes with veto or forget"),
        (false, _) => review::verdict::plan(&store, &targets, &verdict, &reviewer, select.confirm_hidden)?,
    };
    finish(&store, plan, &select.write)
}

fn baseline(g: &Global, path: Option<&std::path::Path>, filter: &str, write: &WriteFlags) -> anyhow::Result<u8> {
    let store = write_flags::open_resolved(g, path, write.read_only)?;
    let parsed = Filter::parse(filter).map_err(anyhow::Error::msg)?;
    let items = attribution::inbox(&store);
    let selection = review::baseline::select(items.iter().filter(|i| parsed.matches(i)));
    if selection.targets.is_empty() {
        println!("nothing to baseline");
        return Ok(0);
    }
    println!("baseline {} entities", selection.targets.len());
    let reviewer = Reviewer::now(&write.actor()?);
    let plan = review::baseline::plan(&store, &selection, &reviewer, filter)?;
    finish(&store, plan, write)
}

/// Preview (`--dry-run`) or apply a plan, after listing its impact: every inbound reference to
/// what it takes away or moves, and those it leaves broken (named in the log when applied).
fn finish(store: &Store, plan: Plan, write: &WriteFlags) -> anyhow::Result<u8> {
    let (plan, impact, preview) = review::impact::prepare(store, plan);
    for l in impact.lines() {
        println!("{}", escape::line(&l));
    }
    for r in &plan.repointed {
        println!("repoint {}", escape::line(r));
    }
    for r in &plan.review_state {
        println!("{}", escape::line(r));
    }
    for n in &plan.notes {
        eprintln!("folio: {}", escape::line(n));
    }
    if write.dry_run {
        println!("would {} {} entities", plan.verb, plan.decisions.len());
        for l in preview.lines() {
            println!("{}", escape::line(&l));
        }
        print!("{}", escape::text(&plan.diff()));
        print!("{}", escape::text(&preview.catalog_diff()));
        return Ok(0);
    }
    let result = plan.apply(store, &write.options());
    write_flags::say_rebuilt(store);
    match result {
        Ok(applied) => {
            report_applied(&applied);
            Ok(0)
        }
        Err(review::ReviewError::Write(e)) => Err(write_flags::report(e)),
        Err(e) => Err(e.into()),
    }
}

fn report_applied(applied: &folio_core::store::write::changeset::Applied) {
    for f in &applied.files {
        println!("wrote {}", escape::line(f));
    }
    for c in &applied.catalogs {
        println!("regenerated {}", escape::line(c));
    }
    println!("logged to {}", escape::line(&applied.log));
}
