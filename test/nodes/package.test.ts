// The package as n8n loads it: build nodes/ and credentials/ as `npm run build` does (into a temporary
// package, so a concurrent build is not disturbed), then load it with n8n-core's PackageDirectoryLoader, the
// loader n8n uses for community packages, and check what n8n would show.
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PackageDirectoryLoader } from 'n8n-core';
import type { INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

const root = join(__dirname, '..', '..');
let dir: string;
let loader: PackageDirectoryLoader;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'n8n-nodes-devdata-'));
  execFileSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', join(dir, 'dist')],
    {
      cwd: root,
      stdio: 'pipe',
    },
  );
  // What gulp build:icons copies.
  for (const folder of ['nodes', 'credentials']) {
    cpSync(join(root, folder), join(dir, 'dist', folder), {
      recursive: true,
      filter: (source) => !/\.(ts|json)$/.test(source),
    });
  }
  writeFileSync(join(dir, 'package.json'), readFileSync(join(root, 'package.json')));
  // The peer dependency, as the n8n instance provides it.
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(join(root, 'node_modules', 'n8n-workflow'), join(dir, 'node_modules', 'n8n-workflow'), 'dir');
  loader = new PackageDirectoryLoader(dir);
  await loader.loadAll();
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('n8n finds the DevData node, the DevData Trigger and both credentials through the package.json n8n field', () => {
  expect(Object.keys(loader.nodeTypes).sort()).toEqual(['devData', 'devDataPollTrigger', 'devDataTrigger']);
  expect(Object.keys(loader.credentialTypes).sort()).toEqual(['devDataApi', 'devDataAppApi']);
  expect(loader.known.credentials.devDataApi.supportedNodes).toEqual(['devData', 'devDataPollTrigger']);
  expect(loader.known.credentials.devDataAppApi.supportedNodes?.sort()).toEqual([
    'devData',
    'devDataTrigger',
  ]);
});

test('the DevData Trigger is a webhook trigger with its codex and its own light and dark icons', () => {
  const description = loader.nodeTypes.devDataTrigger.type.description as INodeTypeDescription;
  expect(description.group).toEqual(['trigger']);
  expect(description.inputs).toEqual([]);
  expect(description.webhooks?.map((w) => [w.name, w.httpMethod, w.path])).toEqual([
    ['default', 'POST', 'devdata'],
  ]);
  expect(description.credentials).toEqual([{ name: 'devDataAppApi', required: true }]);
  expect(description.codex?.categories).toEqual(['Productivity', 'Communication']);
  const icons = description.iconUrl as { light: string; dark: string };
  expect(icons).toEqual({
    light: 'icons/n8n-nodes-devdata/dist/nodes/DevDataTrigger/devDataTrigger.svg',
    dark: 'icons/n8n-nodes-devdata/dist/nodes/DevDataTrigger/devDataTrigger.dark.svg',
  });
  for (const icon of Object.values(icons))
    expect(existsSync(join(dir, icon.replace('icons/n8n-nodes-devdata/', '')))).toBe(true);
  const type = loader.nodeTypes.devDataTrigger.type as { webhookMethods?: Record<string, object> };
  expect(Object.keys(type.webhookMethods?.default ?? {}).sort()).toEqual(['checkExists', 'create', 'delete']);
});

test('the node has its codex, light and dark icons that exist in the package, and is usable as a tool', () => {
  const description = loader.nodeTypes.devData.type.description as INodeTypeDescription;
  expect(description.codex?.categories).toEqual(['Productivity', 'Data & Storage', 'Communication']);
  expect(description.codex?.resources?.primaryDocumentation?.[0].url).toMatch(/^https:\/\//);
  expect(description.usableAsTool).toBe(true);
  const icons = description.iconUrl as { light: string; dark: string };
  expect(icons).toEqual({
    light: 'icons/n8n-nodes-devdata/dist/nodes/DevData/devData.svg',
    dark: 'icons/n8n-nodes-devdata/dist/nodes/DevData/devData.dark.svg',
  });
  for (const icon of Object.values(icons))
    expect(existsSync(join(dir, icon.replace('icons/n8n-nodes-devdata/', '')))).toBe(true);
  for (const { type } of Object.values(loader.credentialTypes)) {
    const credentialIcons = type.iconUrl as { light: string; dark: string };
    for (const icon of Object.values(credentialIcons)) {
      expect(existsSync(join(dir, icon.replace('icons/n8n-nodes-devdata/', '')))).toBe(true);
    }
  }
});

test('every parameter has a description, and every operation an action', () => {
  const description = loader.nodeTypes.devData.type.description as INodeTypeDescription;
  const missing: string[] = [];
  const visit = (properties: INodeTypeDescription['properties'], path: string) => {
    for (const property of properties) {
      if (property.type !== 'notice' && !property.description) missing.push(`${path}${property.name}`);
      if (property.name === 'operation') {
        for (const option of property.options ?? []) {
          if (!('action' in option) || !option.action)
            missing.push(`${path}operation.${String(option.name)}`);
        }
      }
      for (const option of property.options ?? []) {
        if ('values' in option) visit(option.values, `${path}${property.name}.${option.name}.`);
        else if ('type' in option) visit([option], `${path}${property.name}.`);
      }
    }
  };
  visit(description.properties, '');
  const trigger = loader.nodeTypes.devDataTrigger.type.description as INodeTypeDescription;
  visit(trigger.properties, 'devDataTrigger.');
  for (const { type } of Object.values(loader.credentialTypes)) visit(type.properties, `${type.name}.`);
  expect(missing).toEqual([]);
});

test('every resource and operation gets its parameters with their defaults, as the editor computes them', () => {
  const description = loader.nodeTypes.devData.type.description as INodeTypeDescription;
  const node = { typeVersion: 1 };
  const resources = description.properties.find((p) => p.name === 'resource')!.options as Array<{
    value: string;
  }>;
  let operations = 0;
  for (const { value: resource } of resources) {
    const selector = description.properties.find(
      (p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource),
    )!;
    for (const { value: operation } of selector.options as Array<{ value: string }>) {
      const parameters = NodeHelpers.getNodeParameters(
        description.properties,
        { resource, operation },
        true,
        false,
        node,
        description,
      );
      expect(parameters).toMatchObject({ resource, operation });
      const shown = description.properties.filter((p) =>
        NodeHelpers.displayParameter(parameters!, p, node, description),
      );
      const names = shown.map((p) => p.name);
      expect(new Set(names).size).toBe(names.length);
      operations++;
    }
  }
  expect(operations).toBe(35);
});
