import{c as r,s as e}from"./flowDiagram-HODETNUW-BKIakZFy.js";import{_ as a}from"./diagram-BM5wCWXQ.js";import"./chunk-5VM5RSS4--yEBqH8F.js";import"./chunk-XXDRQBXY-b0uqosEo.js";import"./chunk-POPQ4Y6H-DFfjNrSP.js";import"./chunk-F27PBJKO-DVYLH6dc.js";import"./channel-DeJc3eGI.js";import"./index-D_mG6e87.js";import"./_commonjsHelpers-CqkleIqs.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
