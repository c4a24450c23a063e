"""The page shell: one self-contained file (inline style and script, no URL), locked by a Content-Security-Policy.

The policy allows exactly this package's own ``<style>`` and ``<script>`` (by their SHA-256) and nothing
else: no other script, no inline event handler, no image, font or frame, no network request. So even a
bug in the escaping could not run anything from the input, and the page works offline from ``file://``.
A notebook fragment (`fragment`) carries the style only: no script, no policy (the notebook's own rules).
"""

from __future__ import annotations

import base64
import hashlib

from ._escape import attr

__all__ = ["CSP", "CSS", "SCRIPT", "fragment", "page_end", "page_start"]

CSS = """
.htc{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#fff}
.htc *{box-sizing:border-box}
.htc [hidden]{display:none!important}
.htc h1{font-size:20px;margin:8px 0}
.htc h2{font-size:15px;margin:6px 0}
.htc code,.htc .src,.htc .body,.htc .json{font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.htc .src,.htc .body,.htc .json{white-space:pre-wrap;overflow-wrap:anywhere}
.htc .muted{color:#57606a}
.htc .panes{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:16px;align-items:start}
.htc .rec-body{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:12px;align-items:start}
@media (max-width:900px){.htc .panes,.htc .rec-body{grid-template-columns:minmax(0,1fr)}}
.htc .turn{border:1px solid #d0d7de;border-left-width:4px;border-radius:6px;margin:0 0 8px;padding:4px 10px 6px}
.htc .role{font-weight:600;font-size:11px;text-transform:uppercase;letter-spacing:.05em;color:#57606a}
.htc .role-system{border-left-color:#8250df}
.htc .role-user{border-left-color:#0969da}
.htc .role-assistant{border-left-color:#1a7f37}
.htc .role-tool{border-left-color:#bf8700}
.htc .role-outside{border-left-color:#8c959f;border-style:dashed}
.htc .flag{box-shadow:0 0 0 2px #cf222e}
.htc .part{margin:4px 0}
.htc .call,.htc .result,.htc .invalid,.htc .tools,.htc .field{border:1px solid #d0d7de;border-radius:4px;
padding:3px 8px;background:#f6f8fa}
.htc .invalid{border-color:#cf222e;background:#fff5f5}
.htc .head{font-size:12.5px}
.htc .kind{font-size:11px;text-transform:uppercase;letter-spacing:.04em;color:#57606a;margin-right:4px}
.htc .fn{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.htc .label{font-size:11px;color:#57606a}
.htc details>summary{cursor:pointer;color:#57606a}
.htc mark.hl{background:#fff8c5;color:inherit;border-bottom:2px solid #bf8700;padding:0}
.htc mark.hl.error{background:#ffebe9;border-bottom-color:#cf222e}
.htc mark.hl.info{background:#ddf4ff;border-bottom-color:#0969da}
.htc mark.zw{display:inline-block;width:0;height:1.15em;vertical-align:text-bottom;border:0;
border-left:2px solid #cf222e}
.htc mark.off{background:none;border-bottom:0}
.htc mark.zw.off{border-left:0}
.htc mark.lit,.htc .pt.lit,.htc .part.lit{outline:2px solid #0969da}
.htc mark.nl::before{content:"\\23CE";color:#cf222e}
.htc .pt:hover{outline:1px dashed #57606a}
.htc .k-tag{color:#8c959f}
.htc .k-call{background:#dafbe1}
.htc .k-result{background:#fff8e0}
.htc .k-invalid{background:#ffebe9}
.htc .k-reasoning{color:#57606a;font-style:italic}
.htc .k-tools{background:#fbefff}
.htc .cc{color:#cf222e;font-weight:600}
.htc .gap{color:#57606a;font-style:italic}
.htc .sev{display:inline-block;font-size:11px;border-radius:3px;padding:0 5px;color:#fff;background:#9a6700}
.htc .sev.error{background:#cf222e}
.htc .sev.info{background:#0969da}
.htc ul.findings{list-style:none;padding:0;margin:4px 0}
.htc li.finding{border-left:3px solid #9a6700;padding:2px 8px;margin:3px 0;background:#fff}
.htc li.finding.error{border-left-color:#cf222e}
.htc li.finding.info{border-left-color:#0969da}
.htc .hint{color:#57606a}
.htc .record{border-top:1px solid #d0d7de;padding:8px 0}
.htc table{border-collapse:collapse;margin:6px 0}
.htc td,.htc th{padding:2px 8px;text-align:left;border-bottom:1px solid #eaeef2}
.htc td.n{text-align:right;font-variant-numeric:tabular-nums}
.htc svg.bar{width:180px;height:10px;display:block}
.htc svg.bar rect{fill:#9a6700}
.htc svg.bar.error rect{fill:#cf222e}
.htc svg.bar.info rect{fill:#0969da}
.htc .tables{display:flex;flex-wrap:wrap;gap:8px 32px;align-items:flex-start}
.htc #summary{border-bottom:2px solid #d0d7de;padding-bottom:8px}
.htc .filters{display:flex;gap:12px;flex-wrap:wrap;align-items:center;margin:8px 0}
.htc .note{border:1px solid #d4a72c;background:#fff8c5;border-radius:6px;padding:6px 10px;margin:8px 0}
.htc.report{display:flex;flex-direction:column}
.htc.report>header{order:-2}
.htc.report>#summary{order:-1}
""".strip()

SCRIPT = """
(function(){
var root=document.querySelector('.htc');
if(!root)return;
function same(el){var p=el.getAttribute('data-part');return p?root.querySelectorAll('[data-part="'+p+'"]'):[];}
function marks(id){return root.querySelectorAll('mark[data-f~="'+id+'"]');}
root.addEventListener('mouseover',function(e){
  var t=e.target.closest('[data-part],li.finding');if(!t)return;
  var lit=t.matches('li.finding')?marks(t.id):same(t);
  for(var i=0;i<lit.length;i++)lit[i].classList.add('lit');
});
root.addEventListener('mouseout',function(e){
  var t=e.target.closest('[data-part],li.finding');if(!t)return;
  var lit=t.matches('li.finding')?marks(t.id):same(t);
  for(var i=0;i<lit.length;i++)lit[i].classList.remove('lit');
});
var picks={code:'',sev:'',file:''};
function apply(){
  var shown=0,on={};
  var recs=root.querySelectorAll('section.record');
  for(var r=0;r<recs.length;r++){
    var rec=recs[r],any=false,items=rec.querySelectorAll('li.finding');
    for(var i=0;i<items.length;i++){
      var li=items[i];
      var ok=(!picks.code||li.getAttribute('data-code')===picks.code)
        &&(!picks.sev||li.getAttribute('data-sev')===picks.sev)
        &&(!picks.file||rec.getAttribute('data-file')===picks.file);
      li.hidden=!ok;if(ok){any=true;shown++;on[li.id]=true;}
    }
    rec.hidden=!any;
    var ms=rec.querySelectorAll('mark[data-f]');
    for(var m=0;m<ms.length;m++){
      var ids=ms[m].getAttribute('data-f').split(' '),lit=false;
      for(var k=0;k<ids.length;k++)if(on[ids[k]])lit=true;
      ms[m].classList.toggle('off',!lit);
    }
  }
  var out=document.getElementById('shown-count');if(out)out.textContent=String(shown);
}
['code','sev','file'].forEach(function(k){
  var s=document.getElementById('filter-'+k);
  if(s)s.addEventListener('change',function(){picks[k]=s.value;apply();});
});
})();
""".strip()


def _digest(source: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode("ascii")


CSP = (
    f"default-src 'none'; style-src '{_digest(CSS)}'; script-src '{_digest(SCRIPT)}'; "
    "img-src 'none'; base-uri 'none'; form-action 'none'"
)


def page_start(title: str, *, kind: str, generator: str = "hermes-toolcall") -> str:
    """Everything before the page's content: the doctype, the policy, the style, the root ``<div>``.

    Args:
        title: the page title (escaped).
        kind: a class of the root (``view``, ``report``).
        generator: what the ``generator`` meta names.
    """
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{attr(CSP)}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="generator" content="{attr(generator)}">\n'
        f"<title>{attr(title)}</title>\n<style>{CSS}</style>\n</head>\n"  # RCDATA: no element inside
        f'<body>\n<div class="htc {attr(kind)}">\n'
    )


def page_end() -> str:
    """Everything after the page's content: the script (filters, linked hover) and the closing tags."""
    return f"</div>\n<script>{SCRIPT}</script>\n</body>\n</html>\n"


def fragment(content: str, *, kind: str) -> str:
    """A notebook fragment: the style and ``content`` in a root ``<div>``, no script.

    >>> fragment("x", kind="view").endswith('<div class="htc view">x</div>')
    True
    """
    return f'<style>{CSS}</style><div class="htc {attr(kind)}">{content}</div>'
