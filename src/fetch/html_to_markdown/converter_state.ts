/**
 * What one conversion has written and is writing, as rules and the writer's helpers read and
 * change it: the sink, lists, tables, code, images, and the counts main-content detection reads.
 *
 * @module
 */
import type { PageImage } from "../page.ts";
import type { ListState } from "./block_rules.ts";
import { ElementStack } from "./element_stack.ts";
import type { Stretch } from "./stretches.ts";
import type { TableState } from "./tables.ts";
import { newSink, type Sink } from "./writer.ts";

/** The state of one conversion, over its stack of open elements. */
export abstract class ConverterState extends ElementStack {
  w: Sink = newSink();
  flatTables = 0;
  /** The web address of the `<a>` being opened, as its rule chose it. */
  linkUrl: string | undefined;
  /** Open links whose address is not the web's, written as text. */
  textLinks = 0;
  /** Linked images written, by target, until a title leads there too (see `images.ts`). */
  readonly thumbnails = new Map<string, Stretch & { sink: Sink }>();
  /** The target of the last linked title (main-content mode). */
  titleUrl = "";
  /** Whether the `<a>` last opened leads to another page of the site (main-content mode). */
  siteLink = false;
  readonly lists: ListState[] = [];
  readonly tables: TableState[] = [];

  /** Text before this index is skipped: a link's text already written as its address. */
  skipTextUntil = -1;
  /** The page's `meta` description, for pages built by JavaScript. */
  description = "";

  inTitle = false;
  title: string | undefined;
  titleText = "";
  preDepth = 0;
  preText = "";
  /** The length of `preText` where its current line starts. */
  preLine = 0;
  preLang = "";
  /** Where the next `</math` and `<annotation` are, as last found (see `math.ts`). */
  mathEnd = -1;
  annotationAt = -1;
  /** Footnotes referred to so far: the label of each by the id of its note. */
  readonly notes = new Map<string, string>();
  /** The language a block wrapping code blocks names (see `openCodeWrapper`). */
  blockLang = "";
  /** The `<pre>` is an `<xmp>`, whose text is raw. */
  preRaw = false;
  codeDepth = 0;
  codeText = "";

  readonly images: PageImage[] = [];
  readonly seen = new Set<string>();
  pictureDepth = 0;
  pictureSources: string[] = [];

  // Main-content detection: on in "main" mode. Text counts are of characters written.
  readonly root: Sink = this.w;
  textChars = 0;
  linkChars = 0;
  linkCount = 0;
  /** The target of the last link counted. */
  lastLinkUrl = "";
  /** Headings with a link in them: teasers' titles, counted to tell a list of teasers. */
  linkedTitles = 0;
  /** Whether the heading being written has been counted as linked. */
  titleLinked = false;
  /** Links to a site's home page (`/`, `/index.html`): a site's name, not a title. */
  homeLinks = 0;
  /** Links to other pages of the page's own site (main-content mode; see `own_site.ts`). */
  siteLinks = 0;
  /** The page's own site, and the one its canonical address names (see `own_site.ts`). */
  site = "";
  canonicalSite = "";
  /** Link targets written so far (main-content mode). */
  readonly linked = new Set<string>();
  landmarksOpen = 0;
  landmarksSeen = 0;
  /** The last flowing text written, and the count of text before it. */
  lastText = "";
  lastTextAt = -1;
  /** The count of text before the last text long enough to be a paragraph's, if not cut. */
  proseAt = -1;
  /** Furniture elements open, and text of articles nested in another so far. */
  furnitureOpen = 0;
  innerArticleText = 0;
  /** Texts that are only "Reply": a comment's control (see `stretches.ts`). */
  replies = 0;
  /** Short texts that show a price: a product's (see `stretches.ts`). */
  prices = 0;
  /** Text, link text and linked titles of the stretches cut so far, however much they hold or
   * as menus (one inside another counted once). */
  cutText = 0;
  cutLinks = 0;
  cutTitles = 0;
  /** The headings of the page's Markdown, in order, with their tag (`h2`): a level to compare. */
  readonly headings: (Stretch & { level: string })[] = [];
  mainStretch: Stretch | undefined;
  readonly articles: Stretch[] = [];
  cellsOmitted = 0;
  /** The text count after the last paragraph short enough to introduce a list (`stretches.ts`). */
  introAt = -1;
  /**
   * Such a list cut as a menu, its stack depth, where the blocks after it end and its index in
   * the sink's cuts: the article's if the article's prose follows it (see `stretches.ts`).
   */
  listed: Stretch | undefined;
  listedDepth = 0;
  listedEnd = 0;
  listedIndex = 0;
}
