// The cluster's private network: one Linux bridge in the caller's namespace and one network
// namespace per database node, joined to the bridge by a veth pair. The service instances stay in
// the caller's namespace and reach the nodes through the bridge; the nodes reach each other
// through it too, so a node can be cut off from its peers alone (nft rules inside its namespace)
// while its own service instance still reaches it and sees what a cut-off node answers.
import { command, tryCommand } from './commands.js';

export interface NodeAddress {
  namespace: string;
  /** The host side of the node's veth pair (on the bridge). */
  hostLink: string;
  ip: string;
}

export interface ClusterNetwork {
  bridge: string;
  /** The bridge's own address: where the service instances' connections come from. */
  gatewayIp: string;
  nodes: NodeAddress[];
}

const CUT_TABLE = 'spanledger_cut';

/**
 * Names and addresses for a network of `nodeCount` nodes: `tag` (a few letters or digits) keeps
 * two clusters on one machine apart, `subnet` (0..255) picks 10.213.<subnet>.0/24.
 */
export function planNetwork(tag: string, subnet: number, nodeCount: number): ClusterNetwork {
  const prefix = `10.213.${subnet}`;
  return {
    bridge: `slbr${tag}`,
    gatewayIp: `${prefix}.1`,
    nodes: Array.from({ length: nodeCount }, (_, index) => ({
      namespace: `spanledger-${tag}-db${index + 1}`,
      hostLink: `sl${tag}d${index + 1}`,
      ip: `${prefix}.${11 + index}`,
    })),
  };
}

export async function createNetwork(network: ClusterNetwork): Promise<void> {
  await command('ip', ['link', 'add', network.bridge, 'type', 'bridge']);
  await command('ip', ['addr', 'add', `${network.gatewayIp}/24`, 'dev', network.bridge]);
  await command('ip', ['link', 'set', network.bridge, 'up']);
  for (const node of network.nodes) {
    await command('ip', ['netns', 'add', node.namespace]);
    await command('ip', ['link', 'add', node.hostLink, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', node.namespace]);
    await command('ip', ['link', 'set', node.hostLink, 'master', network.bridge, 'up']);
    const inside = ['netns', 'exec', node.namespace, 'ip'];
    await command('ip', [...inside, 'addr', 'add', `${node.ip}/24`, 'dev', 'eth0']);
    await command('ip', [...inside, 'link', 'set', 'eth0', 'up']);
    await command('ip', [...inside, 'link', 'set', 'lo', 'up']);
  }
}

export async function removeNetwork(network: ClusterNetwork): Promise<void> {
  for (const node of network.nodes) {
    await tryCommand('ip', ['link', 'del', node.hostLink]);
    await tryCommand('ip', ['netns', 'del', node.namespace]);
  }
  await tryCommand('ip', ['link', 'del', network.bridge]);
}

/** Drops every packet between the node and its peers (both ways); the gateway still reaches it. */
export async function cutOff(network: ClusterNetwork, node: NodeAddress): Promise<void> {
  const peers = network.nodes
    .filter((other) => other !== node)
    .map((other) => other.ip)
    .join(', ');
  const rules = [
    `table inet ${CUT_TABLE} {`,
    '  chain input {',
    '    type filter hook input priority 0; policy accept;',
    `    ip saddr { ${peers} } drop`,
    '  }',
    '  chain output {',
    '    type filter hook output priority 0; policy accept;',
    `    ip daddr { ${peers} } drop`,
    '  }',
    '}',
    '',
  ].join('\n');
  await command('ip', ['netns', 'exec', node.namespace, 'nft', '-f', '-'], rules);
}

export async function reconnect(node: NodeAddress): Promise<void> {
  await command('ip', ['netns', 'exec', node.namespace, 'nft', 'delete', 'table', 'inet', CUT_TABLE]);
}
