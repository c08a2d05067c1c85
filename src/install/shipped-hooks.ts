// Every pre-push hook checkpoint has shipped, as sha256 digests of hooks/pre-push at each change
// (git log -- hooks/pre-push), with the two lines init bakes in (CHECKPOINT_NODE, CHECKPOINT_BIN)
// emptied again. A hook file whose text un-renders to one of these is ours and unedited: init may
// replace it. Anything else holding our marker was edited by the user and is never replaced.
// A change to hooks/pre-push adds its digest here (a test checks the current one is listed).

const SHIPPED_HOOK_DIGESTS: ReadonlySet<string> = new Set([
  '26defdf35828ba0da033c53f02fa0eb007a4c81a6107a2eec068cee63e4b214b', // 6e2eb8a: the first hook
  'd0363899c9c3fa3760958ead84f06b6c1cce6609ee1867ed587227f8f2ddc7c4', // 811cf65: checkpoint-protocol
  '938893de428fedd9a766fa1ec68c6ccd6bc2ea06c190676989121dcfb8fdf328', // 8d74bca: --pushed ranges
  '286a771e38579a350a18e2033b092409fe544afa689344c9816d63b6cba8ec98', // 8bc9649: beside other tools' hooks
  '146e077814b85f75a51803e5d696451e32c0e33b2dd6c690f65ba0a3208632ca', // d6896e0: pre-push-chain
  '8cf46f26e39c21b2a3664a417846890711e36298fca318c7416478195c667de8', // b0d4146: node not found
  'fcc14520e2ab4706b7f88baa6ab15e4f9f8796336e1d8bcfdcf59b695e86c0d6', // a baked node gone: CHECKPOINT_NODE, then PATH; the CLI not found says what to do
  '393f744a61a36f0b948f2b65194e85c932b240dd78b7295ade3a6982d953b751', // a baked CLI gone: skipped, never the clone's node_modules/.bin
  'bf0e631135556b871a1f251614b5590c8e45c5ef482d9c5a9e05a943eb553672', // run through a link: the launcher beside the link's target
  '1e0112c9749166636496b5a1f6863204fd0748a48a0dec1b54973fb6c779af34', // its folder resolved physically (a linked hooks folder)
  '80233b46169ab4f11f204b689b3160520f36957438c254136e39888463cd86a3', // a doctor that could not run (exit 2) said so, not "reconcile the checkpoints above"
  'b4146f096353322856f6ce60064b2c25e1a575274e67c28347046d37ab816e53', // a bare repository (a mirror, a global core.hooksPath) is not judged
  '69fad7b079f399c036e7bd00149c9b1cce454a9d126366575b7b4618655aeb3a', // the pushed refs handed to doctor on stdin (--pushed-stdin), never an argument list
  'bd3a3674390488306f895d7f6a811aa5bdb4ad25871bff8609b69c1480d20891', // run at the work tree's top: a push with --git-dir/--work-tree (GIT_DIR) from anywhere
]);

/** The line every hook of ours holds (its first comment): what tells it from a user's own hook. */
export const HOOK_MARKER = 'checkpoint pre-push hook';

/** A shell-quoted value as init bakes it in (shellQuote: '…' with '\'' for a quote). */
const BAKED = (name: string) => new RegExp(`^${name}='(?:[^']|'\\\\'')*'$`, 'm');

/** A rendered hook's text with the baked-in node and launcher emptied: the template it came from. */
export function unrenderHook(text: string): string {
  return text.replace(BAKED('CHECKPOINT_NODE'), 'CHECKPOINT_NODE=""').replace(BAKED('CHECKPOINT_BIN'), 'CHECKPOINT_BIN=""');
}

export function hookDigest(text: string): string {
  // node:crypto fetched here, not imported: doctor reads this module on every run, and needs a
  // digest only for a hook of ours that is not the current one.
  const { createHash } = process.getBuiltinModule('node:crypto');
  return createHash('sha256').update(unrenderHook(text), 'utf8').digest('hex');
}

/** Whether `text` is our hook as the current template renders it (whatever node and launcher it names). */
export function isCurrentHook(text: string, template: string): boolean {
  return unrenderHook(text) === template;
}

/** Whether `text` is, byte for byte, a pre-push hook checkpoint shipped (whatever node and launcher it names). */
export function isShippedHook(text: string): boolean {
  return SHIPPED_HOOK_DIGESTS.has(hookDigest(text));
}
