import { fieldValueBytes, tokenBytes } from "./character-classes.ts";

// RFC 9112 §7.1.1:
//   chunk-ext      = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
//   chunk-ext-name = token
//   chunk-ext-val  = token / quoted-string
// One state per position in that grammar; each byte moves it once, so the check is linear.

/** Nothing after the size yet: the line may end, or BWS and ";" start an extension. */
const atStart = 0;
/** BWS after the size or after a value: only more BWS or ";" may follow. */
const beforeSemicolon = 1;
/** After ";": BWS, then the name must start. */
const beforeName = 2;
const inName = 3;
/** BWS after a name: more BWS, "=" or ";". */
const afterName = 4;
/** After "=": BWS, then a token or a quoted string. */
const beforeValue = 5;
const inTokenValue = 6;
const inQuotedValue = 7;
/** After a backslash inside a quoted string. */
const inQuotedPair = 8;
const afterQuotedValue = 9;

const SP = 0x20;
const HTAB = 0x09;
const SEMICOLON = 0x3b;
const EQUALS = 0x3d;
const DQUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Checks the chunk extensions of one chunk-size line, byte by byte, against RFC 9112 §7.1.1: a
 * ";" with no name after it, an "=" with no value, or a quoted string left open is malformed.
 * The extensions themselves are not kept.
 */
export class ChunkExtensionGrammar {
  #state = atStart;

  /** Starts a new chunk-size line. */
  reset(): void {
    this.#state = atStart;
  }

  /** Whether the line may end (CR) after the bytes taken so far. */
  get complete(): boolean {
    const state = this.#state;
    return (
      state === atStart || state === inName || state === inTokenValue || state === afterQuotedValue
    );
  }

  /** Takes the next byte of the line (never its CR); false when the grammar does not allow it. */
  take(byte: number): boolean {
    const whitespace = byte === SP || byte === HTAB;
    switch (this.#state) {
      case atStart:
      case beforeSemicolon:
        return this.#to(byte === SEMICOLON ? beforeName : whitespace ? beforeSemicolon : -1);
      case beforeName:
        return this.#to(tokenBytes[byte] === 1 ? inName : whitespace ? beforeName : -1);
      case inName:
      case afterName:
        if (tokenBytes[byte] === 1 && this.#state === inName) return true;
        return this.#to(this.#afterItem(byte, whitespace, afterName, beforeValue));
      case beforeValue:
        if (byte === DQUOTE) return this.#to(inQuotedValue);
        return this.#to(tokenBytes[byte] === 1 ? inTokenValue : whitespace ? beforeValue : -1);
      case inTokenValue:
        if (tokenBytes[byte] === 1) return true;
        return this.#to(this.#afterItem(byte, whitespace, beforeSemicolon, -1));
      case inQuotedValue:
        // qdtext: HTAB, SP, VCHAR but DQUOTE and backslash, obs-text.
        if (byte === DQUOTE) return this.#to(afterQuotedValue);
        if (byte === BACKSLASH) return this.#to(inQuotedPair);
        return fieldValueBytes[byte] === 1;
      case inQuotedPair:
        return this.#to(fieldValueBytes[byte] === 1 ? inQuotedValue : -1);
      default:
        return this.#to(this.#afterItem(byte, whitespace, beforeSemicolon, -1));
    }
  }

  /** Where a ";", "=" (when `onEquals` is a state) or BWS leads after a name or value. */
  #afterItem(byte: number, whitespace: boolean, onWhitespace: number, onEquals: number): number {
    if (byte === SEMICOLON) return beforeName;
    if (byte === EQUALS) return onEquals;
    return whitespace ? onWhitespace : -1;
  }

  #to(state: number): boolean {
    if (state < 0) return false;
    this.#state = state;
    return true;
  }
}
