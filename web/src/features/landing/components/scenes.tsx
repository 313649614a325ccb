/** The six scenario frames of the landing carousel, drawn inline (no external images). */

interface WorkerProps {
  x: number;
  y: number;
  scale?: number;
  helmet?: boolean;
  vest?: boolean;
  gloves?: boolean;
  shield?: boolean;
  arcSuit?: boolean;
  harness?: boolean;
  boots?: boolean;
  tool?: 'tester' | 'none';
}

function Worker({ x, y, scale = 1, helmet = true, vest = true, gloves = true, shield = false, arcSuit = false, harness = false, boots = true, tool = 'none' }: WorkerProps) {
  const body = arcSuit ? '#1e3a8a' : '#334155';
  return (
    <g transform={`translate(${x} ${y}) scale(${scale})`}>
      {/* legs */}
      <rect x="-14" y="60" width="12" height="52" rx="5" fill={arcSuit ? '#1e3a8a' : '#1f2937'} />
      <rect x="2" y="60" width="12" height="52" rx="5" fill={arcSuit ? '#1e3a8a' : '#1f2937'} />
      {boots ? (
        <>
          <rect x="-17" y="106" width="17" height="9" rx="3" fill="#78350f" />
          <rect x="0" y="106" width="17" height="9" rx="3" fill="#78350f" />
        </>
      ) : null}
      {/* torso */}
      <rect x="-20" y="0" width="40" height="64" rx="10" fill={body} />
      {vest ? (
        <g>
          <path d="M-20 8h14v56h-14z M6 8h14v56H6z" fill="#f97316" />
          <rect x="-20" y="34" width="40" height="5" fill="#e5e7eb" />
          <rect x="-20" y="46" width="40" height="5" fill="#e5e7eb" />
        </g>
      ) : null}
      {harness ? <path d="M-16 4L12 60M16 4L-12 60M-20 50h40" stroke="#facc15" strokeWidth="4" fill="none" /> : null}
      {/* arms */}
      <rect x="-32" y="4" width="11" height="48" rx="5" fill={body} transform="rotate(8 -26 4)" />
      <rect x="21" y="4" width="11" height="48" rx="5" fill={body} transform="rotate(-28 26 4)" />
      <circle cx="-32" cy="54" r="7" fill={gloves ? '#dc2626' : '#d6a77a'} />
      <circle cx="47" cy="42" r="7" fill={gloves ? '#dc2626' : '#d6a77a'} />
      {tool === 'tester' ? (
        <g>
          <rect x="44" y="18" width="8" height="30" rx="2" fill="#facc15" />
          <rect x="46" y="8" width="4" height="12" fill="#0f172a" />
        </g>
      ) : null}
      {/* head */}
      <circle cx="0" cy="-16" r="15" fill="#d6a77a" />
      {helmet ? (
        <g>
          <path d="M-17 -20c0-12 8-19 17-19s17 7 17 19z" fill="#facc15" />
          <rect x="-21" y="-22" width="42" height="5" rx="2.5" fill="#eab308" />
        </g>
      ) : (
        <path d="M-15 -22c2-9 8-12 15-12s13 3 15 12c-6-4-24-4-30 0z" fill="#3f2a1d" />
      )}
      {shield ? <path d="M-16 -18h32v22c0 6-7 9-16 9s-16-3-16-9z" fill="#7dd3fc" opacity="0.55" stroke="#e0f2fe" strokeWidth="1.5" /> : null}
    </g>
  );
}

/** ok: seen worn; bad: seen missing; required: what the job needs (not judged from an image without a vision model). */
type Tone = 'ok' | 'bad' | 'required';

function Box({ x, y, w, h, label, tone = 'ok' }: { x: number; y: number; w: number; h: number; label: string; tone?: Tone }) {
  const color = tone === 'ok' ? '#22c55e' : tone === 'bad' ? '#ef4444' : '#eab308';
  return (
    <g>
      <rect x={x} y={y} width={w} height={h} fill="none" stroke={color} strokeWidth="2.5" strokeDasharray={tone === 'ok' ? undefined : '6 4'} rx="3" />
      <rect x={x} y={y - 18} width={Math.max(54, label.length * 7.2 + 10)} height="17" fill={color} rx="3" />
      <text x={x + 5} y={y - 5} fontSize="12" fontFamily="system-ui, sans-serif" fontWeight="700" fill="#0b1220">
        {label}
      </text>
    </g>
  );
}

function Sky({ id, from, to }: { id: string; from: string; to: string }) {
  return (
    <>
      <defs>
        <linearGradient id={id} x1="0" y1="0" x2="0" y2="1">
          <stop offset="0" stopColor={from} />
          <stop offset="1" stopColor={to} />
        </linearGradient>
      </defs>
      <rect width="640" height="400" fill={`url(#${id})`} />
    </>
  );
}

function Pole({ x }: { x: number }) {
  return (
    <g>
      <rect x={x - 7} y="40" width="14" height="330" fill="#6b4f3a" />
      <rect x={x - 70} y="70" width="140" height="10" fill="#57534e" />
      {[-60, -20, 20, 60].map((dx) => (
        <rect key={dx} x={x + dx - 4} y="58" width="8" height="14" rx="2" fill="#a7f3d0" />
      ))}
    </g>
  );
}

const Ground = ({ color = '#1f2937' }: { color?: string }) => <rect y="340" width="640" height="60" fill={color} />;

// Box with explicit w/h helper to keep call sites short.
function B(props: { x: number; y: number; w: number; h: number; label: string; tone?: Tone }) {
  return <Box {...props} />;
}

function Scene({ n, l }: { n: number; l: SceneLabels }) {
  switch (n) {
    case 0:
      return (
        <>
          <Sky id="s1" from="#0c4a6e" to="#7dd3fc" />
          <path d="M0 62 Q320 110 640 62" stroke="#0f172a" strokeWidth="2" fill="none" />
          <path d="M0 84 Q320 130 640 84" stroke="#0f172a" strokeWidth="2" fill="none" />
          <Pole x={380} />
          <Ground color="#365314" />
          <Worker x={350} y={160} scale={0.9} harness />
          <B x={300} y={118} w={46} h={30} label={`${l.helmet} ✓`} />
          <B x={322} y={176} w={56} h={56} label={l.harness} tone="required" />
        </>
      );
    case 1:
      return (
        <>
          <Sky id="s2" from="#111827" to="#374151" />
          <rect x="60" y="70" width="220" height="270" rx="6" fill="#475569" />
          {[0, 1, 2].map((r) => (
            <g key={r}>
              <rect x="80" y={90 + r * 80} width="180" height="60" rx="4" fill="#334155" />
              <circle cx="110" cy={120 + r * 80} r="9" fill={r === 1 ? '#ef4444' : '#22c55e'} />
              <path d={`M200 ${105 + r * 80} l-10 16h10l-8 14`} stroke="#facc15" strokeWidth="3" fill="none" />
            </g>
          ))}
          <Ground />
          <Worker x={390} y={200} arcSuit shield vest={false} />
          <B x={368} y={160} w={46} h={44} label={l.faceShield} tone="required" />
          <B x={360} y={200} w={64} h={70} label={l.arcSuit} tone="required" />
        </>
      );
    case 2:
      return (
        <>
          <Sky id="s3" from="#7c2d12" to="#fdba74" />
          <circle cx="540" cy="90" r="36" fill="#fde68a" />
          <Ground color="#44403c" />
          <rect x="60" y="270" width="220" height="70" rx="8" fill="#f8fafc" />
          <rect x="200" y="240" width="80" height="40" rx="6" fill="#e2e8f0" />
          <circle cx="110" cy="344" r="20" fill="#111827" />
          <circle cx="240" cy="344" r="20" fill="#111827" />
          <path d="M150 270 L330 150" stroke="#facc15" strokeWidth="14" strokeLinecap="round" />
          <rect x="310" y="110" width="70" height="50" rx="6" fill="#facc15" />
          <Worker x={345} y={60} scale={0.7} harness />
          <B x={327} y={33} w={36} h={24} label={`${l.helmet} ✓`} />
          <B x={300} y={58} w={90} h={54} label={l.harness} tone="required" />
        </>
      );
    case 3:
      return (
        <>
          <Sky id="s4" from="#1e293b" to="#475569" />
          <rect x="380" y="110" width="180" height="230" rx="6" fill="#64748b" />
          <rect x="400" y="130" width="140" height="110" rx="4" fill="#1e293b" />
          <path d="M430 150l-12 22h14l-10 22" stroke="#facc15" strokeWidth="4" fill="none" />
          <Ground />
          <Worker x={300} y={210} tool="tester" />
          <B x={262} y={248} w={40} h={30} label={l.gloves} tone="required" />
          <B x={334} y={214} w={36} h={48} label={l.tester} tone="required" />
        </>
      );
    case 4:
      return (
        <>
          <Sky id="s5" from="#0f766e" to="#99f6e4" />
          <Ground color="#3f3f46" />
          <Worker x={170} y={215} />
          <Worker x={320} y={215} />
          <Worker x={470} y={215} gloves={false} />
          <B x={146} y={212} w={48} h={70} label={`${l.vest} ✓`} />
          <B x={296} y={212} w={48} h={70} label={`${l.vest} ✓`} />
          <B x={505} y={245} w={30} h={24} label={l.gloves} tone="required" />
        </>
      );
    default:
      return (
        <>
          <Sky id="s6" from="#172554" to="#1e40af" />
          <path d="M0 70 Q320 120 640 70" stroke="#0f172a" strokeWidth="2" fill="none" />
          <Pole x={140} />
          <Ground color="#1c1917" />
          <rect x="360" y="250" width="180" height="90" rx="6" fill="#52525b" />
          <rect x="375" y="262" width="150" height="12" fill="#facc15" />
          <Worker x={300} y={215} helmet={false} />
          <B x={280} y={172} w={42} h={36} label={`${l.helmet} ✗`} tone="bad" />
          <B x={278} y={212} w={46} h={70} label={`${l.vest} ✓`} />
        </>
      );
  }
}

export const SCENE_COUNT = 6;

export interface SceneLabels {
  helmet: string;
  harness: string;
  faceShield: string;
  arcSuit: string;
  gloves: string;
  tester: string;
  vest: string;
}

export function ScenarioFrame({ index, title, labels }: { index: number; title: string; labels: SceneLabels }) {
  return (
    <svg viewBox="0 0 640 400" role="img" aria-label={title} className="scene-svg" preserveAspectRatio="xMidYMid slice">
      <Scene n={index} l={labels} />
    </svg>
  );
}
