import type { TokenFeatures } from "./define-preset.js";
import { FeatureInputError } from "./errors.js";
import type { AttributeSink } from "./types.js";

/**
 * The votes of a two-stage model's first stage (Krishnan & Manning 2006), one column each, in
 * this order after the data's input columns: `dtok` the majority entity type the first stage gave
 * the other occurrences of the same word in the document, `dent` the majority type of the other
 * occurrences of the same entity string in the document (for tokens inside a predicted entity),
 * `ctok` the majority type of the other occurrences of the word in the whole corpus being tagged.
 */
export const VOTE_KINDS = ["dtok", "dent", "ctok"] as const;

export type VoteKind = (typeof VOTE_KINDS)[number];

/** A vote column's value where there is no vote (no other occurrence). */
export const NO_VOTE = "_";

const CAPITALISED = /^\p{Lu}/u;

/** Per token and kind the names its vote fires (null: no vote), and 1/2 capitalised or not. */
interface SentenceVotes {
  readonly lists: readonly (readonly string[] | null)[];
  readonly caps: Uint8Array;
}

/**
 * The vote columns (from input column `first` on) as attributes: `vote:dtok=PER` and the same
 * conjoined with whether the word is capitalised (`vote:dtok=PER&cap=1`); `O` votes count too,
 * {@link NO_VOTE} gives nothing. Rows without the vote columns are refused: a two-stage model's
 * input is the data with its first stage's votes appended, never the data alone.
 */
export function voteFeatures(first: number): TokenFeatures<SentenceVotes> {
  // names per kind and value: [plain, capitalised, not capitalised]
  const names = VOTE_KINDS.map(() => new Map<string, readonly string[]>());
  const namesOf = (k: number, value: string): readonly string[] => {
    const byValue = names[k]!;
    let list = byValue.get(value);
    if (list === undefined) {
      const base = `vote:${VOTE_KINDS[k]!}=${value}`;
      list = [base, `${base}&cap=1`, `${base}&cap=0`];
      byValue.set(value, list);
    }
    return list;
  };
  const need = first + VOTE_KINDS.length;
  return {
    prepare(rows) {
      const lists: (readonly string[] | null)[] = new Array(rows.length * VOTE_KINDS.length);
      const caps = new Uint8Array(rows.length);
      for (let t = 0; t < rows.length; t++) {
        const row = rows[t]!;
        if (row.length < need) {
          throw new FeatureInputError(
            "votes",
            t,
            `has ${row.length} column(s); a two-stage model reads its first stage's votes (${VOTE_KINDS.join(", ")}) in columns ${first + 1}–${need}: its input is the data with the votes appended (lagrange tag of a whole file, or recipes' withDocumentInputs), never the data alone`,
          );
        }
        caps[t] = CAPITALISED.test(row[0] ?? "") ? 1 : 2;
        for (let k = 0; k < VOTE_KINDS.length; k++) {
          const value = row[first + k]!;
          lists[t * VOTE_KINDS.length + k] = value === NO_VOTE ? null : namesOf(k, value);
        }
      }
      return { lists, caps };
    },
    token({ lists, caps }, t, sink: AttributeSink) {
      for (let k = 0; k < VOTE_KINDS.length; k++) {
        const list = lists[t * VOTE_KINDS.length + k];
        if (list === null || list === undefined) continue;
        sink.state(t, list[0]!, 1);
        sink.state(t, list[caps[t]!]!, 1);
      }
    },
  };
}
