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
import type { INode, INodePropertyOptions, INodeTypeDescription, INodeTypes } from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import { operations } from '../../nodes/DevData/actions/router';
import { PACKAGE_NAME } from '../helpers/package';

const root = join(__dirname, '..', '..');
let dir: string;
let loader: PackageDirectoryLoader;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), `${PACKAGE_NAME}-`));
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

test('n8n finds the DevData node, its three triggers and both credentials through the package.json n8n field', () => {
  expect(Object.keys(loader.nodeTypes).sort()).toEqual([
    'devData',
    'devDataPollTrigger',
    'devDataTranscriptTrigger',
    'devDataTrigger',
  ]);
  expect(Object.keys(loader.credentialTypes).sort()).toEqual(['devDataApi', 'devDataAppApi']);
  expect(loader.known.credentials.devDataApi.supportedNodes?.sort()).toEqual([
    'devData',
    'devDataPollTrigger',
    'devDataTrigger',
  ]);
  expect(loader.known.credentials.devDataAppApi.supportedNodes?.sort()).toEqual([
    'devData',
    'devDataTranscriptTrigger',
  ]);
});

test('n8n takes the package name the suites name node types with from package.json', () => {
  expect(loader.packageName).toBe(PACKAGE_NAME);
});

test('the DevData Transcript Trigger is a webhook trigger with its codex and its own light and dark icons', () => {
  const description = loader.nodeTypes.devDataTranscriptTrigger.type.description as INodeTypeDescription;
  expect(description.group).toEqual(['trigger']);
  expect(description.inputs).toEqual([]);
  expect(description.webhooks?.map((w) => [w.name, w.httpMethod, w.path])).toEqual([
    ['default', 'POST', 'devdata'],
  ]);
  expect(description.credentials).toEqual([{ name: 'devDataAppApi', required: true }]);
  expect(description.codex?.categories).toEqual(['Productivity', 'Communication']);
  const icons = description.iconUrl as { light: string; dark: string };
  expect(icons).toEqual({
    light: 'icons/n8n-nodes-devdata/dist/nodes/DevDataTranscriptTrigger/devDataTranscriptTrigger.svg',
    dark: 'icons/n8n-nodes-devdata/dist/nodes/DevDataTranscriptTrigger/devDataTranscriptTrigger.dark.svg',
  });
  for (const icon of Object.values(icons))
    expect(existsSync(join(dir, icon.replace('icons/n8n-nodes-devdata/', '')))).toBe(true);
  const type = loader.nodeTypes.devDataTranscriptTrigger.type as { webhookMethods?: Record<string, object> };
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
  const trigger = loader.nodeTypes.devDataTranscriptTrigger.type.description as INodeTypeDescription;
  visit(trigger.properties, 'devDataTranscriptTrigger.');
  const eventTrigger = loader.nodeTypes.devDataTrigger.type.description as INodeTypeDescription;
  visit(eventTrigger.properties, 'devDataTrigger.');
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
      // The editor offers exactly the credential the operation authenticates with (none to build a reply).
      const credentials = description
        .credentials!.filter((c) => NodeHelpers.displayParameter(parameters!, c, node, description))
        .map((c) => c.name);
      const uses =
        resource === 'proactiveReply'
          ? []
          : resource === 'notification' && operation === 'send'
            ? ['devDataAppApi']
            : ['devDataApi'];
      expect({ resource, operation, credentials }).toEqual({ resource, operation, credentials: uses });
      operations++;
    }
  }
  expect(operations).toBe(44);
});

test('the router runs exactly the operations each resource offers in its Operation dropdown', () => {
  const description = loader.nodeTypes.devData.type.description as INodeTypeDescription;
  const offered = Object.fromEntries(
    (description.properties.find((p) => p.name === 'resource')!.options as Array<{ value: string }>).map(
      ({ value: resource }) => {
        const selector = description.properties.find(
          (p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource),
        )!;
        const values = (selector.options as Array<{ value: string }>).map((o) => o.value);
        return [resource, values.sort()];
      },
    ),
  );
  const routed = Object.fromEntries(
    Object.entries(operations).map(([resource, byName]) => [resource, Object.keys(byName).sort()]),
  );
  expect(routed).toEqual(offered);
});

test('the canvas subtitle is the chosen operation as a sentence, e.g. "Get many goals"', () => {
  const description = loader.nodeTypes.devData.type.description as INodeTypeDescription;
  const subtitleOf = (resource: string, operation: string) => {
    const node: INode = {
      id: '1',
      name: 'DevData',
      type: 'n8n-nodes-devdata.devData',
      typeVersion: 1,
      position: [0, 0],
      parameters: { resource, operation },
    };
    const nodeTypes = {
      getByName: () => loader.nodeTypes.devData.type,
      getByNameAndVersion: () => loader.nodeTypes.devData.type,
      getKnownTypes: () => ({}),
    } as unknown as INodeTypes;
    const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
    // As the editor evaluates it for the canvas.
    return workflow.expression.getSimpleParameterValue(node, description.subtitle!, 'internal', {});
  };
  expect(subtitleOf('goal', 'getAll')).toBe('Get many goals');
  expect(subtitleOf('actionItem', 'create')).toBe('Create an action item');
  for (const property of description.properties.filter((p) => p.name === 'operation')) {
    for (const resource of property.displayOptions!.show!.resource as string[]) {
      for (const option of property.options as INodePropertyOptions[]) {
        expect(subtitleOf(resource, String(option.value))).toBe(option.action);
      }
    }
  }
});

test('the nodes panel lists the DevData Trigger’s events on the DevData page; the other triggers stand alone', () => {
  // n8n's nodes panel shows a trigger named "<node>Trigger" as part of <node> (its events under "Triggers" on the
  // node's page, the trigger's description on the node's entry); any other trigger is an entry of its own.
  const names = Object.keys(loader.nodeTypes);
  const mergedInto = (name: string) => name.replace('Trigger', '');
  const triggers = names.filter((n) => n.includes('Trigger'));
  expect(triggers.filter((name) => names.includes(mergedInto(name)))).toEqual(['devDataTrigger']);
  const descriptions = names.map(
    (name) => (loader.nodeTypes[name].type.description as INodeTypeDescription).description,
  );
  expect(new Set(descriptions).size).toBe(names.length);
  // The panel makes an "On <event>" entry of each option of the trigger's property called "Events" but "*".
  const trigger = loader.nodeTypes.devDataTrigger.type.description as INodeTypeDescription;
  expect(trigger.displayName.toLowerCase()).toContain('trigger');
  const events = trigger.properties.find((p) => p.displayName === 'Events')!;
  const listed = (events.options as INodePropertyOptions[]).filter((o) => o.name !== '*');
  expect(listed.map((o) => o.value)).toEqual(
    expect.arrayContaining(['action_item.completed', 'conversation.created', 'memory.created']),
  );
  expect(listed).toHaveLength(16);
});

test('the DevData Trigger is a webhook trigger on the developer credential, with its codex and icons', () => {
  const description = loader.nodeTypes.devDataTrigger.type.description as INodeTypeDescription;
  expect(description.group).toEqual(['trigger']);
  expect(description.inputs).toEqual([]);
  expect(description.webhooks?.map((w) => [w.name, w.httpMethod, w.path, w.responseMode])).toEqual([
    ['default', 'POST', 'events', 'onReceived'],
  ]);
  expect(description.credentials).toEqual([{ name: 'devDataApi', required: true }]);
  expect(description.codex?.categories).toEqual(['Productivity', 'Data & Storage']);
  const icons = description.iconUrl as { light: string; dark: string };
  expect(icons).toEqual({
    light: 'icons/n8n-nodes-devdata/dist/nodes/DevDataTrigger/devDataTrigger.svg',
    dark: 'icons/n8n-nodes-devdata/dist/nodes/DevDataTrigger/devDataTrigger.dark.svg',
  });
  for (const icon of Object.values(icons)) {
    const svg = readFileSync(join(dir, icon.replace('icons/n8n-nodes-devdata/', '')), 'utf8');
    expect(svg).toMatch(/^<svg /);
  }
  const type = loader.nodeTypes.devDataTrigger.type as { webhookMethods?: Record<string, object> };
  expect(Object.keys(type.webhookMethods?.default ?? {}).sort()).toEqual(['checkExists', 'create', 'delete']);
});

test('the Poll Trigger has light and dark icons of its own, apart from the DevData node’s', () => {
  const icons = (loader.nodeTypes.devDataPollTrigger.type.description as INodeTypeDescription).iconUrl as {
    light: string;
    dark: string;
  };
  expect(icons).toEqual({
    light: 'icons/n8n-nodes-devdata/dist/nodes/DevDataPollTrigger/devDataPollTrigger.svg',
    dark: 'icons/n8n-nodes-devdata/dist/nodes/DevDataPollTrigger/devDataPollTrigger.dark.svg',
  });
  for (const icon of Object.values(icons)) {
    const svg = readFileSync(join(dir, icon.replace('icons/n8n-nodes-devdata/', '')), 'utf8');
    expect(svg).toMatch(/^<svg /);
  }
});

test('the Transcript Trigger panel shows no notice by default and one short notice for manual registration', () => {
  const description = loader.nodeTypes.devDataTranscriptTrigger.type.description as INodeTypeDescription;
  const node = { typeVersion: 1 };
  const noticesFor = (parameters: Record<string, string>) => {
    const values = NodeHelpers.getNodeParameters(
      description.properties,
      parameters,
      true,
      false,
      node,
      description,
    )!;
    return description.properties.filter(
      (p) => p.type === 'notice' && NodeHelpers.displayParameter(values, p, node, description),
    );
  };
  expect(noticesFor({})).toEqual([]);
  const manual = noticesFor({ registration: 'manual' });
  expect(manual).toHaveLength(1);
  expect(manual[0].displayName.length).toBeLessThan(200);
});

// n8n's verification scanner fetches a package's npm provenance, the source it attests and the published tarball,
// all over the network. Its lint of the tarball (compiled code and package.json) and of the source runs here on
// `npm pack`'s output and on this checkout; the provenance itself exists only once the publish workflow has run.
test('npm pack output and the sources pass the lint of n8n’s community package scanner', () => {
  const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], {
    cwd: dir,
    encoding: 'utf8',
  });
  const tarballDir = join(dir, 'packed');
  mkdirSync(tarballDir);
  execFileSync('tar', [
    '-xzf',
    join(dir, packed.trim().split('\n').pop()!),
    '-C',
    tarballDir,
    '--strip-components=1',
  ]);
  expect(existsSync(join(tarballDir, 'dist', 'nodes', 'DevData', 'DevData.node.js'))).toBe(true);

  const scan = `
    import { analyzePackage, SOURCE_FILE_PATTERNS } from '@n8n/scan-community-package/scanner/scanner.mjs';
    const [tarballDir, sourceDir] = process.argv.slice(1);
    const tarball = await analyzePackage(tarballDir, ['**/*.js', 'package.json']);
    const source = await analyzePackage(sourceDir, SOURCE_FILE_PATTERNS);
    console.log(JSON.stringify({ tarball, source }));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', scan, tarballDir, root], {
    cwd: root,
    encoding: 'utf8',
    // eslint-plugin-n8n-nodes-base pretends every file is Test.node.ts when NODE_ENV is test, as jest sets it.
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const { tarball, source } = JSON.parse(output.trim().split('\n').pop()!);
  expect({ passed: tarball.passed, details: tarball.details }).toEqual({ passed: true, details: undefined });
  expect({ passed: source.passed, details: source.details }).toEqual({ passed: true, details: undefined });
}, 120_000);
