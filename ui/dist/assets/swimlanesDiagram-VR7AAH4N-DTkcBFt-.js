import{c as r,s as e}from"./flowDiagram-HODETNUW-DfsjBXIf.js";import{_ as a}from"./diagram-CKO8ujG2.js";import"./chunk-5VM5RSS4-BnWp40kv.js";import"./chunk-XXDRQBXY-BQnBDi7s.js";import"./chunk-POPQ4Y6H-VuhL5zD2.js";import"./chunk-F27PBJKO-eOKZxxgj.js";import"./channel-BIYr3pIu.js";import"./index-BCA2N35X.js";import"./_commonjsHelpers-CqkleIqs.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
