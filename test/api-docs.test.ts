/**
 * "Public API gets TSDoc with a short example", checked: every name an entry point of package.json
 * `exports` exports (`./dist/X.js` read as `src/X.ts`), followed through re-exports and aliases to
 * its declaration, must carry a TSDoc comment (`/** … *\/`) directly above it:
 *
 * - functions, classes, and consts holding a function or a class: with an `@example`;
 * - interfaces, type aliases, enums, namespaces and other consts: a comment, no example needed;
 * - public methods and accessors of an exported class (static ones too): a comment, unless the
 *   member implements one of an interface the class implements (the interface documents it).
 *   No `@example` on members: the class's example is enough (when this test was written, 49 of
 *   265 documented public methods had one, so an example per method was not the norm);
 * - overloads: the first signature carries the comment (the implementation's is never shown);
 * - src/types/checks.generated.ts: the one-line comment scripts/gen-checks.ts writes above each
 *   check, no example (change the generator, not the file). No entry point re-exports it today;
 *   the rule is here for the day one does.
 *
 * Every offender is listed in the failure message.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const GENERATED = "src/types/checks.generated.ts";

const { exports } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  exports: Record<string, { import: string }>;
};
const entries = Object.entries(exports).map(([subpath, { import: file }]) => ({
  subpath,
  file: join(root, file.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts")),
}));

/** The `/** … *\/` comments directly above `node` (for a variable, above its statement). */
function docsOf(node: ts.Node): string[] {
  const host =
    ts.isVariableDeclaration(node) && ts.isVariableDeclarationList(node.parent) ? node.parent.parent : node;
  const text = host.getSourceFile().getFullText();
  return (ts.getLeadingCommentRanges(text, host.getFullStart()) ?? [])
    .map((range) => text.slice(range.pos, range.end))
    .filter((comment) => comment.startsWith("/**") && !comment.startsWith("/**/"));
}

const hasExample = (docs: string[]) => docs.some((doc) => /(^|\n)\s*\*?\s*@example\b/.test(doc));

function isCallable(checker: ts.TypeChecker, node: ts.VariableDeclaration): boolean {
  const init = node.initializer;
  if (init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init) || ts.isClassExpression(init))) {
    return true;
  }
  const type = checker.getTypeAtLocation(node.name);
  return type.getCallSignatures().length > 0 || type.getConstructSignatures().length > 0;
}

/** Names of the members of the interfaces `node` implements (and of their bases). */
function implementedNames(checker: ts.TypeChecker, node: ts.ClassDeclaration): Set<string> {
  const names = new Set<string>();
  for (const clause of node.heritageClauses ?? []) {
    if (clause.token !== ts.SyntaxKind.ImplementsKeyword) continue;
    for (const type of clause.types) {
      for (const property of checker.getTypeAtLocation(type).getProperties()) names.add(property.name);
    }
  }
  return names;
}

function isPublic(member: ts.ClassElement): boolean {
  if (member.name && ts.isPrivateIdentifier(member.name)) return false;
  const flags = ts.getCombinedModifierFlags(member as unknown as ts.Declaration);
  return (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) === 0;
}

function findGaps(): { gaps: string[]; checked: number } {
  const program = ts.createProgram(
    entries.map((entry) => entry.file),
    {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: ["node"],
    },
  );
  const checker = program.getTypeChecker();
  const gaps = new Set<string>();
  const seen = new Set<ts.Node>();
  let checked = 0;

  const check = (where: string, docs: string[], example: boolean) => {
    checked++;
    if (docs.length === 0) gaps.add(`${where}: no TSDoc comment${example ? " (with @example)" : ""}`);
    else if (example && !hasExample(docs)) gaps.add(`${where}: TSDoc comment has no @example`);
  };

  for (const entry of entries) {
    const source = program.getSourceFile(entry.file);
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`${entry.subpath}: ${entry.file} is not a module`);
    for (const exported of checker.getExportsOfModule(module)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const declarations = symbol.declarations ?? [];
      // Overloads: the comment on the first signature is the one editors show.
      const functions = declarations.filter(ts.isFunctionDeclaration);
      for (const node of declarations) {
        if (seen.has(node)) continue;
        seen.add(node);
        if (ts.isFunctionDeclaration(node) && node !== functions[0]) continue;
        const file = relative(root, node.getSourceFile().fileName);
        const generated = file === GENERATED;
        const where = `${file}: ${symbol.name} (${entry.subpath})`;
        if (ts.isFunctionDeclaration(node)) {
          check(where, docsOf(node), !generated);
        } else if (ts.isClassDeclaration(node)) {
          check(where, docsOf(node), !generated);
          const inherited = implementedNames(checker, node);
          for (const member of node.members) {
            if (!(ts.isMethodDeclaration(member) || ts.isAccessor(member)) || !isPublic(member)) continue;
            const name = member.name.getText();
            const property = checker
              .getTypeAtLocation(node)
              .getProperties()
              .find((candidate) => candidate.declarations?.includes(member));
            if (inherited.has(property?.name ?? name)) continue;
            // Overloaded methods: the first signature carries the comment.
            const first = node.members.find(
              (other) => other.kind === member.kind && other.name?.getText() === name,
            );
            if (first !== member) continue;
            check(`${where} .${name}`, docsOf(member), false);
          }
        } else if (ts.isVariableDeclaration(node)) {
          check(where, docsOf(node), !generated && isCallable(checker, node));
        } else if (
          ts.isInterfaceDeclaration(node) ||
          ts.isTypeAliasDeclaration(node) ||
          ts.isEnumDeclaration(node) ||
          ts.isModuleDeclaration(node)
        ) {
          check(where, docsOf(node), false);
        } else {
          gaps.add(`${where}: a ${ts.SyntaxKind[node.kind]}, which this test does not know`);
        }
      }
    }
  }
  return { gaps: [...gaps].sort(), checked };
}

it("every public export has TSDoc, with an @example on functions and classes", () => {
  const { gaps, checked } = findGaps();
  expect(checked).toBeGreaterThan(300);
  expect(gaps, `${gaps.length} public declarations lack TSDoc:\n${gaps.join("\n")}\n`).toEqual([]);
}, 60_000);
