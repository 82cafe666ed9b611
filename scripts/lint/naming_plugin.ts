/**
 * The naming rules of `docs/naming.md` that a machine can check, as a `deno lint` plugin
 * (registered in `deno.json`, so `deno task check` runs it):
 *
 * - `no-numeric-suffix`: an exported class, interface, type or enum is not told apart from
 *   another by a trailing digit (`SeriesCache2`); its name says how it differs.
 * - `no-renamed-folder`: nothing imports from `src/dialects/` or `src/router/`, the old names
 *   of `src/api_formats/` and `src/smart_router/` (a branch older than the rename).
 * - `no-dialect-in-api-formats`: "dialect" means an upstream wire protocol only, so no
 *   identifier in `src/api_formats/` (the client-facing formats) contains the word.
 */

const RENAMED_FOLDERS: Readonly<Record<string, string>> = {
  "/src/dialects/": "src/api_formats/",
  "/src/router/": "src/smart_router/",
};

/** The file's path with `/` separators (what the rules match folders against). */
function pathOf(context: Deno.lint.RuleContext): string {
  return context.filename.replaceAll("\\", "/");
}

/** A relative import's target, resolved against the importing file. */
function resolved(importer: string, specifier: string): string | undefined {
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return undefined;
  const base = importer.startsWith("/") ? `file://${importer}` : `file:///${importer}`;
  return new URL(specifier, base).pathname;
}

type Named = { id?: Deno.lint.Identifier | null } | undefined;

function checkTrailingDigit(context: Deno.lint.RuleContext, declaration: Named): void {
  const id = declaration?.id;
  if (id?.type === "Identifier" && /\d$/.test(id.name)) {
    context.report({
      node: id,
      message: `'${id.name}' is told apart by a number: name it for how it differs.`,
    });
  }
}

const KINDS_NAMED = new Set([
  "ClassDeclaration",
  "TSInterfaceDeclaration",
  "TSTypeAliasDeclaration",
  "TSEnumDeclaration",
]);

const plugin: Deno.lint.Plugin = {
  name: "sovra-naming",
  rules: {
    "no-numeric-suffix": {
      create(context) {
        const exported = (node: { declaration?: unknown }) => {
          const declaration = node.declaration as { type?: string } | null | undefined;
          if (declaration?.type && KINDS_NAMED.has(declaration.type)) {
            checkTrailingDigit(context, declaration as Named);
          }
        };
        return { ExportNamedDeclaration: exported, ExportDefaultDeclaration: exported };
      },
    },
    "no-renamed-folder": {
      create(context) {
        const check = (source: Deno.lint.StringLiteral | null | undefined) => {
          if (source?.type !== "Literal" || typeof source.value !== "string") return;
          const target = resolved(pathOf(context), source.value);
          if (target === undefined) return;
          for (const [old, now] of Object.entries(RENAMED_FOLDERS)) {
            if (!target.includes(old)) continue;
            context.report({
              node: source,
              message: `'${source.value}' imports from the old ${old.slice(1)}: it is ${now} now.`,
            });
          }
        };
        return {
          ImportDeclaration: (node) => check(node.source),
          ExportNamedDeclaration: (node) => check(node.source),
          ExportAllDeclaration: (node) => check(node.source),
          ImportExpression: (node) => check(node.source as Deno.lint.StringLiteral),
        };
      },
    },
    "no-dialect-in-api-formats": {
      create(context) {
        if (!pathOf(context).includes("/src/api_formats/")) return {};
        return {
          Identifier(node) {
            if (!/dialect/i.test(node.name)) return;
            context.report({
              node,
              message: `'${node.name}': a client format is an API format; ` +
                `"dialect" names an upstream protocol only.`,
            });
          },
        };
      },
    },
  },
};

export default plugin;
