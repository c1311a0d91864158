// The explorer's nodes by id, and each one's parent. A node made again with a known id updates
// the object VS Code already holds, so a refresh of that node reaches the one drawn.

import type { ExplorerNode } from './explorerNodes';

export class ExplorerNodeIndex {
  private readonly nodes = new Map<string, ExplorerNode>();
  private readonly parents = new Map<string, ExplorerNode>();

  get(id: string): ExplorerNode | undefined {
    return this.nodes.get(id);
  }

  parentOf(node: ExplorerNode): ExplorerNode | undefined {
    return this.parents.get(node.id);
  }

  /** The node known by this id (updated with `fresh`), or `fresh`, now known. */
  node<T extends ExplorerNode>(fresh: T): T {
    const known = this.nodes.get(fresh.id);
    if (known && known.kind === fresh.kind) {
      Object.assign(known, fresh);
      return known as T;
    }
    this.nodes.set(fresh.id, fresh);
    return fresh;
  }

  /** As node(), recording its parent. */
  child<T extends ExplorerNode>(parent: ExplorerNode, fresh: T): T {
    const node = this.node(fresh);
    this.parents.set(node.id, parent);
    return node;
  }

  clear(): void {
    this.nodes.clear();
    this.parents.clear();
  }
}
