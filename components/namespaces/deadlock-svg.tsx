"use client";

import { useEffect, useState } from "react";
import type { MapEdge, MapNode } from "@/lib/namespaces/deadlock-view";

const NODE_W = 210;
const NODE_H = 40;

interface Laid {
  width: number;
  height: number;
  nodes: Array<MapNode & { x: number; y: number }>;
  edges: Array<MapEdge & { points: Array<{ x: number; y: number }> }>;
}

/**
 * The deadlock map drawn as SVG. The layout library is imported here only, when the map is
 * first drawn, so it is in no page's first-load JavaScript.
 */
export function DeadlockSvg({ nodes, edges }: { nodes: MapNode[]; edges: MapEdge[] }) {
  const [laid, setLaid] = useState<Laid | undefined>(undefined);
  useEffect(() => {
    let cancelled = false;
    void import("@dagrejs/dagre").then(({ default: dagre }) => {
      if (cancelled) return;
      const g = new dagre.graphlib.Graph({ multigraph: true });
      g.setGraph({ rankdir: "LR", nodesep: 18, ranksep: 70, marginx: 8, marginy: 8 });
      g.setDefaultEdgeLabel(() => ({}));
      for (const n of nodes) g.setNode(n.id, { width: NODE_W, height: NODE_H });
      edges.forEach((e, i) => g.setEdge(e.from, e.to, {}, String(i)));
      dagre.layout(g);
      const label = g.graph();
      setLaid({
        width: Math.ceil(label.width ?? 0),
        height: Math.ceil(label.height ?? 0),
        nodes: nodes.map((n) => {
          const p = g.node(n.id);
          return { ...n, x: p.x, y: p.y };
        }),
        edges: edges.map((e, i) => ({
          ...e,
          points: g.edge({ v: e.from, w: e.to, name: String(i) })?.points ?? [],
        })),
      });
    });
    return () => {
      cancelled = true;
    };
  }, [nodes, edges]);
  if (!laid) return <p className="muted">Laying out the map…</p>;
  return (
    <div className="deadlock-svg">
      <svg
        width={laid.width}
        height={laid.height}
        viewBox={`0 0 ${laid.width} ${laid.height}`}
        role="img"
        aria-label={`Deadlock map: ${nodes.length} nodes, ${edges.filter((e) => e.deadlock).length} edges on deadlocks`}
      >
        <defs>
          {[
            ["arrow", "#5c6670"],
            ["arrow-bad", "#b42318"],
          ].map(([id, fill]) => (
            <marker
              key={id}
              id={id}
              viewBox="0 0 10 10"
              refX="9"
              refY="5"
              markerWidth="7"
              markerHeight="7"
              orient="auto-start-reverse"
            >
              <path d="M 0 0 L 10 5 L 0 10 z" fill={fill} />
            </marker>
          ))}
        </defs>
        {laid.edges.map((e, i) => (
          <polyline
            key={i}
            points={e.points.map((p) => `${p.x},${p.y}`).join(" ")}
            fill="none"
            stroke={e.deadlock ? "#b42318" : "#8a949d"}
            strokeWidth={e.deadlock ? 2 : 1}
            strokeDasharray={e.kind === "serves" ? "4 3" : e.maybe ? "2 2" : undefined}
            markerEnd={`url(#${e.deadlock ? "arrow-bad" : "arrow"})`}
          />
        ))}
        {laid.nodes.map((n) => (
          <g
            key={n.id}
            transform={`translate(${n.x - NODE_W / 2},${n.y - NODE_H / 2})`}
            data-node={n.id}
          >
            <rect
              width={NODE_W}
              height={NODE_H}
              rx={n.kind === "backend" ? 12 : 3}
              fill={n.alarms.length > 0 ? "#fbe4e1" : n.kind === "backend" ? "#eef3fb" : "#fff"}
              stroke={n.alarms.length > 0 ? "#b42318" : n.failClosed ? "#1d2125" : "#9aa3ab"}
              strokeWidth={n.alarms.length > 0 ? 2 : 1}
            />
            <text x={8} y={16} fontSize={12} fontFamily="ui-monospace, monospace" fill="#1d2125">
              {n.label.length > 27 ? `${n.label.slice(0, 26)}…` : n.label}
            </text>
            <text x={8} y={31} fontSize={11} fill="#5c6670">
              {n.sublabel.length > 32 ? `${n.sublabel.slice(0, 31)}…` : n.sublabel}
            </text>
            <title>{[n.label, n.sublabel, ...n.alarms].join("\n")}</title>
          </g>
        ))}
      </svg>
    </div>
  );
}
